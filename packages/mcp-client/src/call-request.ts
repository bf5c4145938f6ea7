import type { McpRequestContext, McpResponse, McpTransport } from "@agent/mcp-transport";
import { type EventSink, type ToolContext, type ToolFailure, toolFailure } from "@agent/tools";
import type { McpServerState } from "./connection-options.js";
import type { Dormancy } from "./dormancy.js";
import { requestAudited } from "./instrumented-transport.js";

/** What a tool call's request needs of its connection, read at the moment it is sent. */
export interface CallTarget {
  server: string;
  state(): McpServerState;
  transport(): McpTransport | undefined;
  dormancy(): Dormancy | undefined;
  callMs(): number | undefined;
  events(): EventSink;
}

/** One request of a tool call: its method, params, and the local tool it is audited under. */
export interface CallRequest {
  method: string;
  params: Record<string, unknown>;
  toolName: string;
}

/**
 * Sends one request of a tool call with the call's signal and progress: reopens a dormant connection
 * first (then `recheck` says whether the call still applies to what the server now lists), keeps the
 * idle clock stopped while it runs, and attributes it to the call in the audit trail.
 */
export async function sendForCall(
  target: CallTarget,
  request: CallRequest,
  context: ToolContext,
  recheck: () => ToolFailure | undefined,
): Promise<McpResponse | ToolFailure> {
  const dormancy = target.dormancy();
  dormancy?.begin();
  try {
    if (dormancy && (target.state() === "dormant" || dormancy.waking)) {
      if (await dormancy.wake(context.signal)) {
        const stale = recheck();
        if (stale) return stale;
      } else if (context.signal.aborted) {
        return toolFailure("cancelled", "The call was cancelled while the server reconnected.");
      }
    }
    const transport = target.transport();
    const state = target.state();
    if (state !== "ready" || !transport) {
      return toolFailure("mcp_unavailable", `Server "${target.server}" is not connected (${state}).`);
    }
    const callMs = target.callMs();
    const requestContext: McpRequestContext = { signal: context.signal };
    // No listener, no progress token: the server then has no progress to send and the SDK none to track.
    if (context.progressListened !== false) {
      requestContext.onProgress = (progress) => context.reportProgress(progress);
    }
    if (callMs !== undefined) requestContext.timeoutMs = callMs;
    return await requestAudited(
      transport,
      target.events(),
      target.server,
      { callId: context.callId, toolName: request.toolName },
      request.method,
      request.params,
      requestContext,
    );
  } finally {
    dormancy?.end();
  }
}
