/**
 * Helpers for the cancellation tests against server-everything: run its long-running operation,
 * cancel it mid-way, and read from the wire and the SDK's reports what the server did afterwards.
 */
import type { McpTransport } from "@agent/mcp-transport";
import { executeToolCall, type ToolCallOutcome, type ToolProgress } from "@agent/tools";
import type { ClientHarness } from "./integration-helpers.js";

/** server-everything's long-running operation, as the registry names it. */
export const LONG_RUNNING_TOOL = "mcp__everything__trigger-long-running-operation";

/** What {@link cancelAfterSecondProgress} saw. */
export interface CancelledRun {
  callId: string;
  outcome: ToolCallOutcome;
  /** Every progress callback the executor made, aborted or not. */
  progress: ToolProgress[];
}

/**
 * Runs server-everything's long-running operation (`steps` steps over `duration` seconds) through the
 * executor with a progress listener, and aborts the caller's signal on the second progress report.
 */
export async function cancelAfterSecondProgress(
  harness: ClientHarness<McpTransport>,
  input: { duration: number; steps: number },
): Promise<CancelledRun> {
  const callId = "call_long_running";
  const controller = new AbortController();
  const progress: ToolProgress[] = [];
  const outcome = await executeToolCall(
    { name: LONG_RUNNING_TOOL, input, callId },
    {
      ...harness.env,
      signal: controller.signal,
      onProgress: (update) => {
        progress.push(update);
        if (progress.length === 2) controller.abort();
      },
    },
  );
  return { callId, outcome, progress };
}

/**
 * Progress values the server sent for request `requestId` (the SDK's progress token) after the client
 * stopped waiting for it. The SDK drops such notifications and reports them as protocol noise, which
 * is how a test can see them at all.
 */
export function lateProgress(harness: ClientHarness<McpTransport>, requestId: unknown): number[] {
  return harness.transportErrors.flatMap((error) => {
    if (!error.message.includes("progress notification for an unknown token")) return [];
    const token = /"progressToken":(\d+)/.exec(error.message);
    const progress = /"progress":(\d+)/.exec(error.message);
    return token && progress && Number(token[1]) === requestId ? [Number(progress[1])] : [];
  });
}

/** The id of the first request on the wire that `matches` (JSON-RPC messages as the client sent them). */
export function requestIdOf(
  messages: readonly unknown[],
  matches: (request: RequestShape) => boolean,
): unknown {
  const found = messages.find(
    (message): message is RequestShape =>
      typeof message === "object" &&
      message !== null &&
      "id" in message &&
      "method" in message &&
      matches(message as RequestShape),
  );
  return found?.id;
}

/** The fields of a JSON-RPC request that tests look at. */
export interface RequestShape {
  id: unknown;
  method: string;
  params?: { name?: string; arguments?: Record<string, unknown> };
}

/** Whether `message` is the `notifications/cancelled` the SDK sends for request `requestId`. */
export function isCancellationOf(message: unknown, requestId: unknown): boolean {
  const candidate = message as { method?: unknown; params?: { requestId?: unknown } } | null;
  return candidate?.method === "notifications/cancelled" && candidate.params?.requestId === requestId;
}

/** Responses the server sent to requests the client no longer waited for (protocol noise as well). */
export function lateResponses(harness: ClientHarness<McpTransport>): string[] {
  return harness.transportErrors
    .filter((error) => error.message.includes("response for an unknown message ID"))
    .map((error) => error.message);
}
