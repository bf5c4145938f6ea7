import type { McpTransport, McpWireProtocol } from "@agent/mcp-transport";
import { type EventSink, emitEvent } from "@agent/tools";
import { type ListToolsOptions, listTools, type ToolListing } from "./discovery.js";
import { phaseTimeout, toMcpClientError } from "./errors.js";
import {
  type ClientInfo,
  confirmInitialized,
  type InitializeResult,
  requestInitialize,
} from "./handshake.js";
import { createPhaseContext } from "./phase.js";
import { since } from "./time.js";

/** What a lifecycle phase runs against. */
export interface PhaseRun {
  server: string;
  transport: McpTransport;
  events: EventSink;
  signal: AbortSignal | undefined;
  timeoutMs: number;
}

/** What a handshake's caller hears between its steps (see {@link runHandshakePhase}). */
export interface HandshakeSteps {
  answered?(result: InitializeResult): void;
  confirmed?(): void;
}

/**
 * The handshake as a bounded phase: `initialize` within `timeoutMs` (the whole phase), reported as
 * `mcp_initialized` (with the version on the wire, `wire` says which when the transport chose the
 * stateless protocol) or `mcp_initialize_failed`; a failure throws a `McpClientError` naming the server.
 * `steps` hear the server's answer before `notifications/initialized` goes out, and its sending
 * before the handshake is reported done; either may throw to abandon it (the connection closed).
 */
export async function runHandshakePhase(
  run: PhaseRun,
  clientInfo: ClientInfo,
  capabilities: Record<string, unknown>,
  wire: () => McpWireProtocol | undefined = () => undefined,
  steps: HandshakeSteps = {},
): Promise<InitializeResult> {
  const started = performance.now();
  const phase = createPhaseContext(run.signal, run.timeoutMs);
  try {
    const result = await requestInitialize(run.transport, phase.context, clientInfo, capabilities);
    // Before notifications/initialized: from then on the server may ask, under the version it chose.
    steps.answered?.(result);
    await confirmInitialized(run.transport);
    steps.confirmed?.();
    const spoken = wire();
    emitEvent(run.events, {
      type: "mcp_initialized",
      server: run.server,
      protocolVersion: spoken?.era === "stateless" ? spoken.protocolVersion : result.protocolVersion,
      durationMs: since(started),
      ...(result.serverInfo ? { serverName: result.serverInfo.name } : {}),
    });
    return result;
  } catch (error) {
    const failure = phase.timedOut()
      ? phaseTimeout("mcp_initialize_failed", "initialize", run.timeoutMs, run.server, error)
      : toMcpClientError(error, run.server);
    emitEvent(run.events, {
      type: "mcp_initialize_failed",
      server: run.server,
      code: failure.code,
      message: failure.message,
      durationMs: since(started),
    });
    throw failure;
  }
}

/** Discovery's listing as a bounded phase: every page of `tools/list` within `timeoutMs` in all. */
export async function runListingPhase(run: PhaseRun, limits: ListToolsOptions): Promise<ToolListing> {
  const phase = createPhaseContext(run.signal, run.timeoutMs);
  try {
    return await listTools(run.server, run.transport, phase.context, limits);
  } catch (error) {
    if (!phase.timedOut()) throw error;
    throw phaseTimeout("mcp_tools_list_failed", "tools/list", run.timeoutMs, run.server, error);
  }
}
