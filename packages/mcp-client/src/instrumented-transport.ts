import { MCP_ERROR_CODES, type McpResponse, type McpTransport } from "@agent/mcp-transport";
import { type AgentEventInput, type CallRequestRecord, type EventSink, emitEvent } from "@agent/tools";
import { since } from "./time.js";

/** Which tool call a request belongs to, for the audit trail. */
export interface CallAttribution {
  callId: string;
  toolName: string;
}

/**
 * Wraps a transport so that every request emits `mcp_request_finished` with its method, duration and
 * code. A request cancelled once `lifetime` (the connection's own signal) has aborted was background
 * work of the connection (a rediscovery after `list_changed`, a reconnect) abandoned at close: nobody
 * asked for it, so it is not recorded as a cancellation. The server is still told it was cancelled.
 */
export function instrumentTransport(
  transport: McpTransport,
  events: EventSink,
  server: string,
  lifetime?: AbortSignal,
): McpTransport {
  return {
    request: async (method, params, context) => {
      const started = performance.now();
      const response = await transport.request(method, params, context);
      const abandoned =
        lifetime?.aborted && !response.ok && response.error.code === MCP_ERROR_CODES.cancelled;
      if (!abandoned) emitRequestFinished(events, server, undefined, method, started, response);
      return response;
    },
    notify: (method, params) => transport.notify(method, params),
    onNotification: (listener) => transport.onNotification(listener),
    onClose: (listener) => transport.onClose(listener),
    close: () => transport.close(),
  };
}

/** A tool call's request as its outcome record holds it (`tool_call_finished.request`). */
export function requestRecord(
  server: string,
  method: string,
  started: number,
  response: McpResponse,
): CallRequestRecord {
  const record: CallRequestRecord = { server, method, durationMs: since(started), ok: response.ok };
  if (!response.ok) record.code = response.error.code;
  return record;
}

/**
 * Emits the `mcp_request_finished` of one request that started at `started` (a `performance.now()`
 * reading): what {@link instrumentTransport} does for each request, for a caller that sends a
 * request once (a tool call's) and needs no wrapper.
 */
export function emitRequestFinished(
  events: EventSink,
  server: string,
  call: CallAttribution | undefined,
  method: string,
  started: number,
  response: McpResponse,
): void {
  // Field by field rather than with spreads, which V8 makes slow for this shape: it is once per call.
  const event: AgentEventInput & { type: "mcp_request_finished" } = {
    type: "mcp_request_finished",
    server,
    method,
    durationMs: since(started),
    ok: response.ok,
  };
  if (!response.ok) event.code = response.error.code;
  if (call) {
    event.callId = call.callId;
    event.toolName = call.toolName;
  }
  emitEvent(events, event);
}
