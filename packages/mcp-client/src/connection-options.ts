import type { McpTransport, McpWireProtocol } from "@agent/mcp-transport";
import type { EventSink, JsonValue, RegisteredTool, ToolRegistry } from "@agent/tools";
import type { McpClientFeatures } from "./client-features.js";
import type { ListToolsOptions, RejectedTool } from "./discovery.js";
import { MCP_CLIENT_ERROR_CODES, McpClientError } from "./errors.js";
import type { ClientInfo, InitializeResult } from "./handshake.js";
import { DEFAULT_MAX_LIST_TTL_MS, DEFAULT_MIN_LIST_TTL_MS, type FreshnessBounds } from "./list-freshness.js";
import { parseMcpToolName } from "./names.js";
import type { RejectedEntry } from "./server-catalog.js";

/**
 * Where a connection stands. `disconnected`: the server went away; its tools answer `mcp_unavailable`.
 * `dormant`: closed after `idleTimeoutMs` without use; its tools stay registered and the next use
 * reconnects (handshake, discovery, comparison of definitions) before it is sent.
 */
export type McpServerState =
  | "idle"
  | "connecting"
  | "ready"
  | "dormant"
  | "disconnected"
  | "failed"
  | "closed";

/** Time limits of the lifecycle phases, in milliseconds (the README's "Deadlines" table says who owns which). */
export interface McpServerTimeouts {
  /** The whole handshake, the spawn of a stdio server included. */
  initializeMs: number;
  /** Every page of one `tools/list` (and of each resource or prompt listing) together. */
  listToolsMs: number;
  /**
   * Upper bound for closing. Unset (the default): derived from the transport's own close bound,
   * `closeBoundAround(transport.closeTimeoutMs)`, so that the transport's kill always comes first.
   */
  closeMs: number | undefined;
  /** A transport-level limit for each `tools/call`; the executor's own timeout applies regardless. */
  callMs: number | undefined;
}

/** Used for any timeout the caller leaves unset. */
export const DEFAULT_SERVER_TIMEOUTS: Readonly<McpServerTimeouts> = Object.freeze({
  initializeMs: 30_000,
  listToolsMs: 30_000,
  closeMs: undefined,
  callMs: undefined,
});

/** Capped exponential backoff for reconnecting after the server went away. */
export interface ReconnectPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** Used for any reconnect setting the caller leaves unset when reconnecting is enabled. */
export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = Object.freeze({
  maxAttempts: 5,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
});

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
  /** What the client offers the server (roots, elicitation, sampling); nothing by default. */
  features?: McpClientFeatures;
  /**
   * Close the connection after this long without a request in flight, and reopen it on next use
   * (a new handshake and discovery, definitions compared as on a reconnect). Unset: never.
   */
  idleTimeoutMs?: number;
  /** Reconnect automatically after the server goes away or a wake from dormancy fails; off by default. */
  reconnect?: Partial<ReconnectPolicy> | boolean;
  maxPages?: number;
  /**
   * How long a stateless (2026-07-28) server's listing is trusted, whatever its `ttlMs` says: at least
   * `minMs` (default 1,000, so `ttlMs: 0` cannot turn every call into a re-listing) and at most `maxMs`
   * (default one hour). Once it expires, the next call lists the tools again first.
   */
  listTtl?: Partial<FreshnessBounds>;
  /** Bytes of `tools/list` results one discovery may read in all pages together (default 32 MiB). */
  maxListingBytes?: number;
}

/** What a connection knows, for listings. */
export interface McpServerSnapshot {
  name: string;
  state: McpServerState;
  /** The protocol version spoken on the wire: the handshake's, or 2026-07-28 on the stateless protocol. */
  protocolVersion: string | undefined;
  /** `handshake` (2025-11-25 and older) or `stateless` (2026-07-28, no session), once connected. */
  protocolEra: McpWireProtocol["era"] | undefined;
  serverInfo: { name: string; version: string } | undefined;
  error: { code: string; message: string } | undefined;
  tools: { name: string; remoteName: string; effect: RegisteredTool["effect"]; description: string }[];
  rejected: RejectedTool[];
  excluded: string[];
  /** How many resources, resource templates and prompts the server listed (zero when it offers none). */
  catalog: { resources: number; resourceTemplates: number; prompts: number; rejected: RejectedEntry[] };
}

/** The longest delay `setTimeout` honours: a longer one fires at once, so it is refused, not clamped. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The timeouts in effect: the caller's, with defaults for the rest. Each must be a whole number of
 * milliseconds from 1 to {@link MAX_TIMEOUT_MS}; anything else (NaN, Infinity, a fraction, a
 * negative, a value `setTimeout` would fire at once) throws `invalid_option`.
 */
export function resolveTimeouts(timeouts: Partial<McpServerTimeouts> = {}): McpServerTimeouts {
  const resolved = { ...DEFAULT_SERVER_TIMEOUTS, ...definedOnly(timeouts) };
  for (const name of ["initializeMs", "listToolsMs", "closeMs", "callMs"] as const) {
    if ((name === "callMs" || name === "closeMs") && resolved[name] === undefined) continue;
    assertWholeNumber(`timeouts.${name}`, resolved[name], 1, MAX_TIMEOUT_MS, "milliseconds");
  }
  return resolved;
}

/** The reconnect policy in effect, or undefined when reconnecting is off; bad numbers throw `invalid_option`. */
export function resolveReconnectPolicy(
  reconnect: McpServerConnectionOptions["reconnect"],
): ReconnectPolicy | undefined {
  if (!reconnect) return undefined;
  const policy =
    reconnect === true
      ? DEFAULT_RECONNECT_POLICY
      : { ...DEFAULT_RECONNECT_POLICY, ...definedOnly(reconnect) };
  assertWholeNumber("reconnect.maxAttempts", policy.maxAttempts, 1, Number.MAX_SAFE_INTEGER, "attempts");
  assertWholeNumber("reconnect.initialDelayMs", policy.initialDelayMs, 0, MAX_TIMEOUT_MS, "milliseconds");
  assertWholeNumber("reconnect.maxDelayMs", policy.maxDelayMs, 0, MAX_TIMEOUT_MS, "milliseconds");
  return policy;
}

/** The discovery limits of a connection's options, checked: `maxPages` and `maxListingBytes` must be whole numbers >= 1. */
export function resolveListingLimits(options: McpServerConnectionOptions): ListToolsOptions {
  const limits: ListToolsOptions = {};
  if (options.maxPages !== undefined) {
    assertWholeNumber("maxPages", options.maxPages, 1, Number.MAX_SAFE_INTEGER, "pages");
    limits.maxPages = options.maxPages;
  }
  if (options.maxListingBytes !== undefined) {
    assertWholeNumber("maxListingBytes", options.maxListingBytes, 1, Number.MAX_SAFE_INTEGER, "bytes");
    limits.maxBytes = options.maxListingBytes;
  }
  return limits;
}

/** The bounds on a stateless server's `ttlMs` in effect; whole milliseconds from 0 to {@link MAX_TIMEOUT_MS}, `minMs <= maxMs`, else `invalid_option`. */
export function resolveListTtlBounds(options: McpServerConnectionOptions): FreshnessBounds {
  const bounds = {
    minMs: DEFAULT_MIN_LIST_TTL_MS,
    maxMs: DEFAULT_MAX_LIST_TTL_MS,
    ...definedOnly(options.listTtl ?? {}),
  };
  assertWholeNumber("listTtl.minMs", bounds.minMs, 0, MAX_TIMEOUT_MS, "milliseconds");
  assertWholeNumber("listTtl.maxMs", bounds.maxMs, bounds.minMs, MAX_TIMEOUT_MS, "milliseconds");
  return bounds;
}

/** Throws `invalid_option` unless `value` is a whole number within `[min, max]`. */
export function assertWholeNumber(
  name: string,
  value: unknown,
  min: number,
  max: number,
  unit: string,
): void {
  if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return;
  const got = typeof value === "number" ? String(value) : typeof value;
  throw new McpClientError(
    MCP_CLIENT_ERROR_CODES.invalidOption,
    `${name} must be a whole number of ${unit} from ${min} to ${max}, got ${got}.`,
  );
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;
}

/** The idle timeout in effect, or undefined for none; throws `invalid_option` unless it is a whole number of milliseconds from 1 to {@link MAX_TIMEOUT_MS}. */
export function resolveIdleTimeout(options: McpServerConnectionOptions): number | undefined {
  const { idleTimeoutMs } = options;
  if (idleTimeoutMs === undefined) return undefined;
  assertWholeNumber("idleTimeoutMs", idleTimeoutMs, 1, MAX_TIMEOUT_MS, "milliseconds");
  return idleTimeoutMs;
}

/** What a snapshot is made of. */
export interface SnapshotParts {
  name: string;
  state: McpServerState;
  initialized: InitializeResult | undefined;
  wire: McpWireProtocol | undefined;
  error: McpServerSnapshot["error"];
  tools: readonly RegisteredTool[];
  rejected: readonly RejectedTool[];
  excluded: readonly string[];
  catalog: {
    resources: readonly unknown[];
    templates: readonly unknown[];
    prompts: readonly unknown[];
    rejected: RejectedEntry[];
  };
}

/** A connection's {@link McpServerSnapshot}, copied so that later changes do not show through. */
export function buildSnapshot(parts: SnapshotParts): McpServerSnapshot {
  const { catalog } = parts;
  return {
    name: parts.name,
    state: parts.state,
    protocolVersion:
      parts.wire?.era === "stateless" ? parts.wire.protocolVersion : parts.initialized?.protocolVersion,
    protocolEra: parts.initialized ? parts.wire?.era : undefined,
    serverInfo: parts.initialized?.serverInfo,
    error: parts.error,
    tools: parts.tools.map((tool) => ({
      name: tool.name,
      remoteName: parseMcpToolName(tool.name)?.remoteName ?? tool.name,
      effect: tool.effect,
      description: tool.description,
    })),
    rejected: [...parts.rejected],
    excluded: [...parts.excluded],
    catalog: {
      resources: catalog.resources.length,
      resourceTemplates: catalog.templates.length,
      prompts: catalog.prompts.length,
      rejected: catalog.rejected,
    },
  };
}
