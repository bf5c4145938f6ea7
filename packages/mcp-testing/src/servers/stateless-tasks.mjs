// The server side of the tasks extension (io.modelcontextprotocol/tasks, SEP-2663) for the stateless
// test server, which no SDK server offers yet. The `job` tool becomes a task when the request's
// envelope offers the extension (it runs at once otherwise): each `tasks/get` of a working task
// counts one of its `steps` down, a `hold`-ing job stays working until POST /control/release, and the
// task then ends as its `outcome` says: `completed`, `tool_error` (completed with isError) or
// `failed` (a protocol error). `tasks/cancel` cancels a task that has not ended. Every task event is
// a record (MCP_TESTING_RECORD_FILE), so a test can count what the server saw.
import { randomUUID } from "node:crypto";
import { record } from "./server-kit.mjs";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const POLL_INTERVAL_MS = 20;
const TTL_MS = 10 * 60_000;

export const JOB_TOOL = {
  name: "job",
  description:
    "A long job that runs as a task: it works for `steps` polls (or until released), then ends as `outcome` says.",
  inputSchema: {
    type: "object",
    properties: {
      label: { type: "string" },
      steps: { type: "integer", minimum: 0 },
      hold: { type: "boolean" },
      outcome: { type: "string", enum: ["completed", "tool_error", "failed"] },
    },
  },
};

function jobResult(job) {
  const text = JSON.stringify({ job: job.label ?? "done", finished: true });
  return job.outcome === "tool_error"
    ? { content: [{ type: "text", text: "the job failed" }], isError: true }
    : { content: [{ type: "text", text }] };
}

/** Whether the request's envelope offers the tasks extension. */
function offersTasks(params) {
  const capabilities = params?._meta?.["io.modelcontextprotocol/clientCapabilities"];
  return capabilities?.extensions?.[TASKS_EXTENSION] !== undefined;
}

/** The tasks of one server process, by id. */
export function createTaskBoard() {
  const tasks = new Map();
  const now = () => new Date().toISOString();

  function view(task) {
    return {
      taskId: task.id,
      status: task.status,
      createdAt: task.createdAt,
      lastUpdatedAt: task.updatedAt,
      ttlMs: TTL_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
    };
  }

  function advance(task) {
    if (task.status !== "working") return;
    if (task.job.hold && !task.released) return;
    if (task.steps > 0) {
      task.steps -= 1;
      return;
    }
    task.status = task.job.outcome === "failed" ? "failed" : "completed";
    task.updatedAt = now();
    record("task_ended", { taskId: task.id, status: task.status });
  }

  return {
    /** `tools/call` of `job`: a task when the client offers the extension, else the result at once. */
    callJob(params) {
      const job = params?.arguments ?? {};
      if (!offersTasks(params)) return { resultType: "complete", ...jobResult(job) };
      const id = `task-${randomUUID()}`;
      const createdAt = now();
      const task = {
        id,
        job,
        steps: job.steps ?? 1,
        status: "working",
        createdAt,
        updatedAt: createdAt,
        released: false,
      };
      tasks.set(id, task);
      record("task_created", { taskId: id, label: job.label });
      return { resultType: "task", ...view(task) };
    },
    /** Answers `tasks/get` and `tasks/cancel`; `undefined` for a method that is not the extension's. */
    answer(method, params) {
      if (method !== "tasks/get" && method !== "tasks/cancel") return undefined;
      const task = tasks.get(params?.taskId);
      if (!task) return { error: { code: -32602, message: "Unknown taskId" } };
      if (method === "tasks/cancel") {
        if (task.status === "working" || task.status === "input_required") {
          task.status = "cancelled";
          task.updatedAt = now();
          record("task_ended", { taskId: task.id, status: "cancelled" });
        }
        return { result: { resultType: "complete" } };
      }
      advance(task);
      const detailed = { resultType: "complete", ...view(task) };
      if (task.status === "completed") detailed.result = jobResult(task.job);
      if (task.status === "failed") detailed.error = { code: -32603, message: "the job's worker crashed" };
      return { result: detailed };
    },
    /** Lets every held job end at its next poll. */
    release() {
      for (const task of tasks.values()) task.released = true;
      record("tasks_released", {});
    },
  };
}
