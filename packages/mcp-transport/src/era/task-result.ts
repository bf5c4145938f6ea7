/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, on 2026-07-28): a server may answer
 * a `tools/call` with a task (`resultType: "task"`, a flat `CreateTaskResult`) instead of its result;
 * the client then polls `tasks/get`, which inlines the tool's result once the task is `completed`
 * (or a JSON-RPC `error` once it `failed`), answers `input_required` with `tasks/update`, and may
 * `tasks/cancel` it. Wire vocabulary: change it only with the specification.
 *
 * Everything here reads what a server sent, so nothing is trusted: a task id is bounded printable
 * ASCII (it is saved with a run, written to the audit trail and shown on terminals), intervals are
 * clamped, and a status outside the five the extension defines fails the call with a clear error.
 */
import { MCP_ERROR_CODES, type McpError } from "../transport.js";
import { isRecord } from "./envelope.js";

/** The extension's id, as the client advertises it under `capabilities.extensions`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The `resultType` of a result that is a task, not yet the tool's result. */
export const TASK_RESULT_TYPE = "task";

/** Every status a task may report. */
export const MCP_TASK_STATUSES = ["working", "input_required", "completed", "failed", "cancelled"] as const;

/** A status of {@link MCP_TASK_STATUSES}. */
export type McpTaskStatus = (typeof MCP_TASK_STATUSES)[number];

/** The bounds the client holds a server's task to. */
export const TASK_LIMITS = {
  /** Characters of a task id (printable ASCII only). */
  maxTaskIdLength: 256,
  /** The shortest wait between two polls, whatever the server asks: a server cannot make the client spin. */
  minPollIntervalMs: 10,
  /** The longest wait between two polls, whatever the server asks. */
  maxPollIntervalMs: 30_000,
  /** The wait between two polls when the server suggests none. */
  defaultPollIntervalMs: 1_000,
  /** How long `tasks/cancel` may take when the call is given up (the call's own time is spent). */
  cancelTimeoutMs: 5_000,
} as const;

const TASK_ID = /^[\x21-\x7e]+$/;

/** A task as the server created or reported it, checked. */
export interface McpTaskState {
  taskId: string;
  status: McpTaskStatus;
  /** The server's suggested wait between polls, clamped to {@link TASK_LIMITS}. */
  pollIntervalMs: number;
}

/** A `tasks/get` answer, checked: the task, and what its status carries. */
export type DetailedTask =
  | (McpTaskState & { status: "working" | "cancelled" })
  | (McpTaskState & { status: "completed"; result: Record<string, unknown> })
  | (McpTaskState & { status: "failed"; error: McpError })
  | (McpTaskState & { status: "input_required"; input: Record<string, unknown> });

/** A checked value, or why the server's answer is refused. */
export type TaskRead<T> = { ok: true; value: T } | { ok: false; error: McpError };

/** Whether a result is a task rather than the tool's result. */
export function isTaskResult(result: unknown): result is Record<string, unknown> {
  return isRecord(result) && result.resultType === TASK_RESULT_TYPE;
}

/** Whether `taskId` is one the client accepts (bounded printable ASCII). */
export function isValidTaskId(taskId: unknown): taskId is string {
  return typeof taskId === "string" && taskId.length <= TASK_LIMITS.maxTaskIdLength && TASK_ID.test(taskId);
}

/** Whether a status is one after which the task never changes. */
export function isTerminalTaskStatus(status: McpTaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** `capabilities` with the tasks extension added under `extensions` (the caller's other extensions kept). */
export function withTasksExtension(capabilities: unknown): Record<string, unknown> {
  const base = isRecord(capabilities) ? capabilities : {};
  const extensions = isRecord(base.extensions) ? base.extensions : {};
  return { ...base, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
}

function refused(reason: string): { ok: false; error: McpError } {
  return {
    ok: false,
    error: { code: MCP_ERROR_CODES.internalError, message: `The server's task is invalid: ${reason}.` },
  };
}

/** A short, printable rendering of a value the server sent, for an error message. */
function shown(value: unknown): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  return JSON.stringify(text.slice(0, 64)).replace(/[^\x20-\x7e]/g, "?");
}

function clampInterval(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return TASK_LIMITS.defaultPollIntervalMs;
  return Math.min(TASK_LIMITS.maxPollIntervalMs, Math.max(TASK_LIMITS.minPollIntervalMs, Math.round(value)));
}

/** The id, status and poll interval every task answer carries; `expectedId` pins a `tasks/get` answer to its task. */
function readState(result: Record<string, unknown>, expectedId?: string): TaskRead<McpTaskState> {
  const { taskId, status } = result;
  if (!isValidTaskId(taskId)) {
    return refused(`its taskId is not printable ASCII of at most ${TASK_LIMITS.maxTaskIdLength} characters`);
  }
  if (expectedId !== undefined && taskId !== expectedId)
    return refused("tasks/get answered for another task");
  if (typeof status !== "string" || !(MCP_TASK_STATUSES as readonly string[]).includes(status)) {
    return refused(`unknown status ${shown(status)} (expected one of ${MCP_TASK_STATUSES.join(", ")})`);
  }
  return {
    ok: true,
    value: { taskId, status: status as McpTaskStatus, pollIntervalMs: clampInterval(result.pollIntervalMs) },
  };
}

/** Checks a `CreateTaskResult` (the answer of a `tools/call` that became a task). */
export function readCreatedTask(result: Record<string, unknown>): TaskRead<McpTaskState> {
  return readState(result);
}

/** Checks a `tasks/get` answer for the task `taskId`, with what its status must carry. */
export function readDetailedTask(result: unknown, taskId: string): TaskRead<DetailedTask> {
  if (!isRecord(result)) return refused("tasks/get did not answer with an object");
  const read = readState(result, taskId);
  if (!read.ok) return read;
  const state = read.value;
  switch (state.status) {
    case "completed":
      if (!isRecord(result.result)) return refused("a completed task carries no result");
      return { ok: true, value: { ...state, status: "completed", result: result.result } };
    case "failed": {
      const { error } = result;
      if (!isRecord(error) || typeof error.code !== "number" || typeof error.message !== "string") {
        return refused("a failed task carries no error with a numeric code and a message");
      }
      const failure: McpError = { code: error.code, message: error.message };
      if (error.data !== undefined) failure.data = error.data;
      return { ok: true, value: { ...state, status: "failed", error: failure } };
    }
    case "input_required":
      return { ok: true, value: { ...state, status: "input_required", input: result } };
    default:
      return { ok: true, value: { ...state, status: state.status } };
  }
}
