import type { McpTransport } from "@agent/mcp-transport";
import type { EventSink, JsonValue, RegisteredTool, ToolRegistry } from "@agent/tools";
import type { RejectedTool } from "./discovery.js";
import type { ClientInfo } from "./handshake.js";

/** Where a connection stands. `disconnected`: the server went away; its tools answer `mcp_unavailable`. */
export type McpServerState = "idle" | "connecting" | "ready" | "disconnected" | "failed" | "closed";

/** Time limits of the lifecycle phases, in milliseconds. */
export interface McpServerTimeouts {
  initializeMs: number;
  listToolsMs: number;
  closeMs: number;
  /** A transport-level limit for each `tools/call`; the executor's own timeout applies regardless. */
  callMs: number | undefined;
}

/** Used for any timeout the caller leaves unset. */
export const DEFAULT_SERVER_TIMEOUTS: McpServerTimeouts = {
  initializeMs: 30_000,
  listToolsMs: 30_000,
  closeMs: 5_000,
  callMs: undefined,
};

/** Capped exponential backoff for reconnecting after the server went away. */
export interface ReconnectPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** Used for any reconnect setting the caller leaves unset when reconnecting is enabled. */
export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  maxAttempts: 5,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
};

/** Options of `McpServerConnection`. */
export interface McpServerConnectionOptions {
  /** The server's name, the `<server>` of `mcp__<server>__<tool>`. */
  name: string;
  /**
   * What identifies the server beyond its name, e.g. a digest of its command line or URL. It becomes
   * part of every tool's fingerprint: pointing the same name at another server invalidates approvals.
   */
  identity?: JsonValue;
  /** Opens a new transport to the server (called again on every reconnect). */
  connect: () => McpTransport | Promise<McpTransport>;
  registry: ToolRegistry;
  events?: EventSink;
  timeouts?: Partial<McpServerTimeouts>;
  clientInfo?: ClientInfo;
  /** Which remote tools to register (the others are listed as excluded); all by default. */
  includeTool?: (remoteName: string) => boolean;
  /** Reconnect automatically after the server goes away; off by default. */
  reconnect?: Partial<ReconnectPolicy> | boolean;
  maxPages?: number;
}

/** What a connection knows, for listings. */
export interface McpServerSnapshot {
  name: string;
  state: McpServerState;
  protocolVersion: string | undefined;
  serverInfo: { name: string; version: string } | undefined;
  error: { code: string; message: string } | undefined;
  tools: { name: string; remoteName: string; effect: RegisteredTool["effect"]; description: string }[];
  rejected: RejectedTool[];
  excluded: string[];
}

/** The timeouts in effect: the caller's, with defaults for the rest. */
export function resolveTimeouts(timeouts: Partial<McpServerTimeouts> = {}): McpServerTimeouts {
  return { ...DEFAULT_SERVER_TIMEOUTS, ...definedOnly(timeouts) };
}

/** The reconnect policy in effect, or undefined when reconnecting is off. */
export function resolveReconnectPolicy(
  reconnect: McpServerConnectionOptions["reconnect"],
): ReconnectPolicy | undefined {
  if (!reconnect) return undefined;
  return reconnect === true
    ? DEFAULT_RECONNECT_POLICY
    : { ...DEFAULT_RECONNECT_POLICY, ...definedOnly(reconnect) };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}
