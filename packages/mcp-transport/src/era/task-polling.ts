import {
  MCP_ERROR_CODES,
  type McpRequestContext,
  type McpRequestHandler,
  type McpResponse,
  type McpTaskEvent,
  mcpFailure,
} from "../transport.js";
import { INPUT_REQUIRED_LIMITS } from "./input-required.js";
import { answerWithin } from "./multi-round-request.js";
import { type McpTaskState, readDetailedTask, TASK_LIMITS } from "./task-result.js";

/** Sends one request of the task's protocol (the era wrapper adds the envelope). */
export type SendTaskRequest = (
  method: string,
  params: Record<string, unknown>,
  context: McpRequestContext,
) => Promise<McpResponse>;

/** What following a task needs: how to send, the input handlers, the caller's context and deadline. */
export interface TaskFollowing {
  send: SendTaskRequest;
  handlers: ReadonlyMap<string, McpRequestHandler>;
  caller: McpRequestContext;
  /** `performance.now()` past which the call has timed out; unset: no deadline of its own. */
  deadline: number | undefined;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * Follows a task to its end and resolves with what the call would have answered directly: the
 * inlined result of a `completed` task, the JSON-RPC error of a `failed` one, `cancelled` for a task
 * the server cancelled. It polls `tasks/get` at the server's interval (clamped), answers
 * `input_required` through the same handlers as any input request and sends the answers with
 * `tasks/update`. When the caller aborts, or its deadline passes, or the server's answer cannot be
 * followed, the task is sent `tasks/cancel` (the server must not keep working for nobody) and the
 * call ends cancelled, timed out or failed. `created` is the task as it was created, or, for a
 * resumed call, `undefined`: then the first poll is sent at once.
 */
export async function followTask(
  taskId: string,
  created: McpTaskState | undefined,
  following: TaskFollowing,
): Promise<McpResponse> {
  const { caller } = following;
  let status = created?.status;
  let interval = created?.pollIntervalMs ?? 0;
  if (created)
    await report(caller, { kind: "created", taskId, status: created.status, pollIntervalMs: interval });
  let inputRounds = 0;
  for (;;) {
    const waited = await wait(interval, caller, following.deadline);
    if (waited !== "elapsed") return giveUp(taskId, following, waited);
    const remaining = remainingMs(following.deadline);
    const context: McpRequestContext = {
      signal: caller.signal,
      ...(remaining === undefined ? {} : { timeoutMs: remaining }),
    };
    const response = await following.send("tasks/get", { taskId }, context);
    if (!response.ok) return giveUp(taskId, following, response);
    const read = readDetailedTask(response.result, taskId);
    if (!read.ok) return giveUp(taskId, following, read);
    const task = read.value;
    if (task.status !== status) {
      status = task.status;
      await report(caller, { kind: "status", taskId, status });
    }
    interval = task.pollIntervalMs;
    switch (task.status) {
      case "completed":
        return { ok: true, result: task.result };
      case "failed":
        return { ok: false, error: task.error };
      case "cancelled":
        return mcpFailure(MCP_ERROR_CODES.cancelled, "The server cancelled the task.");
      case "input_required": {
        inputRounds += 1;
        if (inputRounds > INPUT_REQUIRED_LIMITS.maxRounds) {
          const failure = mcpFailure(
            MCP_ERROR_CODES.internalError,
            `The server's task still asked for input after ${INPUT_REQUIRED_LIMITS.maxRounds} rounds; it was given up.`,
          );
          return giveUp(taskId, following, failure);
        }
        const answered = await answerWithin(
          task.input,
          following.handlers,
          caller,
          remainingMs(following.deadline),
        );
        if (!answered.ok) return giveUp(taskId, following, answered);
        const { inputResponses } = answered.continuation;
        const updated = await following.send("tasks/update", { taskId, inputResponses }, context);
        if (!updated.ok) return giveUp(taskId, following, updated);
        // Answered: the next poll says what the task made of it, without waiting a whole interval.
        interval = 0;
        break;
      }
      default:
        break;
    }
  }
}

/** Hands an event to the caller, waiting for what it saves; a listener's failure is not the call's. */
async function report(caller: McpRequestContext, event: McpTaskEvent): Promise<void> {
  try {
    await caller.onTask?.(event);
  } catch {
    // The caller's own bookkeeping failed; the task goes on (the caller learns it its own way).
  }
}

function remainingMs(deadline: number | undefined): number | undefined {
  return deadline === undefined ? undefined : Math.max(0, deadline - performance.now());
}

/** Waits `ms` (cut short by the caller's abort or deadline) and says which came first. */
function wait(
  ms: number,
  caller: McpRequestContext,
  deadline: number | undefined,
): Promise<"elapsed" | "cancelled" | "timeout"> {
  if (caller.signal.aborted) return Promise.resolve("cancelled");
  const remaining = remainingMs(deadline);
  if (remaining !== undefined && remaining <= 0) return Promise.resolve("timeout");
  const timedOut = remaining !== undefined && remaining < ms;
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve("cancelled");
    };
    const timer = setTimeout(
      () => {
        caller.signal.removeEventListener("abort", onAbort);
        resolve(timedOut ? "timeout" : "elapsed");
      },
      timedOut ? remaining : ms,
    );
    caller.signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Ends a call whose task it no longer follows: sends `tasks/cancel` (bounded, on a signal of its
 * own, since the caller's may be aborted) and resolves with why the call ended.
 */
async function giveUp(
  taskId: string,
  following: TaskFollowing,
  why: "cancelled" | "timeout" | { ok: false; error: { code: number; message: string; data?: unknown } },
): Promise<McpResponse> {
  const cancel = await following.send(
    "tasks/cancel",
    { taskId },
    { signal: NEVER_ABORTED, timeoutMs: TASK_LIMITS.cancelTimeoutMs },
  );
  await report(following.caller, { kind: "cancel_sent", taskId, ok: cancel.ok });
  if (why === "cancelled")
    return mcpFailure(MCP_ERROR_CODES.cancelled, "request cancelled; the task was cancelled");
  if (why === "timeout")
    return mcpFailure(MCP_ERROR_CODES.timeout, "request timed out; the task was cancelled");
  return why;
}
