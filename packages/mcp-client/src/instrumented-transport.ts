import type { McpRequestContext, McpResponse, McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent } from "@agent/tools";
import { since } from "./time.js";

/** Which tool call a request belongs to, for the audit trail. */
export interface CallAttribution {
  callId: string;
  toolName: string;
}

/** Wraps a transport so that every request emits `mcp_request_finished` with its method, duration and code. */
export function instrumentTransport(
  transport: McpTransport,
  events: EventSink,
  server: string,
  call?: CallAttribution,
): McpTransport {
  return {
    request: (method, params, context) =>
      requestAudited(transport, events, server, call, method, params, context),
    notify: (method, params) => transport.notify(method, params),
    onNotification: (listener) => transport.onNotification(listener),
    onClose: (listener) => transport.onClose(listener),
    close: () => transport.close(),
  };
}

/**
 * Sends one request and emits its `mcp_request_finished`: what {@link instrumentTransport}'s
 * `request` does, without a wrapper to allocate for a request made once (a tool call's).
 */
export async function requestAudited(
  transport: McpTransport,
  events: EventSink,
  server: string,
  call: CallAttribution | undefined,
  method: string,
  params: unknown,
  context: McpRequestContext | AbortSignal,
): Promise<McpResponse> {
  const started = performance.now();
  const response = await transport.request(method, params, context);
  emitEvent(events, {
    type: "mcp_request_finished",
    server,
    method,
    durationMs: since(started),
    ok: response.ok,
    ...(response.ok ? {} : { code: response.error.code }),
    ...(call ? { callId: call.callId, toolName: call.toolName } : {}),
  });
  return response;
}
