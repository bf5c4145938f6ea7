/**
 * The one-call runs the `agent` CLI kept in its own table (`runs` in SQLite, `agent_call_runs` in
 * PostgreSQL, with the same columns) until a one-call run became a run of `@agent/loop`: read here
 * once, by the migration step that moves them into the run tables. Never change how a row is read:
 * databases of every earlier release hold such rows.
 */
import { answerCallRun, newCallRun, type RunState, type RunStatus } from "@agent/loop";
import type { JsonValue, Observation } from "@agent/tools";

/** A row of the CLI's former table of one-call runs (SQLite and PostgreSQL share the columns). */
export interface LegacyCallRunRow {
  id: string;
  created_at: string;
  updated_at: string;
  status: "waiting" | "running" | "completed" | "failed" | "cancelled";
  tool_name: string;
  call_id: string;
  input_json: string;
  tool_fingerprint: string | null;
  cwd: string;
  request_id: string | null;
  outcome_json: string | null;
  /** NULL in a row of the first schema, which recorded no owner. */
  owner_pid: number | null;
  owner_host: string | null;
}

/**
 * The one-call run a legacy row stands for, under the same id, call id and status: a `waiting` run
 * still holds its call for the same approval request (so approving it and resuming works as
 * before), an outcome becomes the call's record, and an owner is kept only when both parts are.
 */
export function callRunOfLegacyRow(row: LegacyCallRunRow): RunState {
  const input = JSON.parse(row.input_json) as JsonValue;
  const options = { runId: row.id, callId: row.call_id, toolName: row.tool_name, input, cwd: row.cwd };
  const started = newCallRun(options, new Date(row.created_at));
  const updated = new Date(row.updated_at);
  const outcome = row.outcome_json === null ? undefined : (JSON.parse(row.outcome_json) as JsonValue);
  const answered = outcome === undefined ? started : answerCallRun(started, answerOf(row, outcome), updated);
  const call = { ...(started.pending[0] as RunState["pending"][number]), status: pendingStatus(row) };
  const waitsOn = row.status === "waiting" && row.request_id !== null ? [row.request_id] : [];
  return {
    ...answered,
    version: 1,
    status: row.status satisfies RunStatus,
    updatedAt: updated.toISOString(),
    toolSetFingerprint: row.tool_fingerprint,
    owner:
      row.owner_pid !== null && row.owner_host !== null ? { pid: row.owner_pid, host: row.owner_host } : null,
    pending: [row.request_id === null ? call : { ...call, requestId: row.request_id }],
    requestIds: waitsOn,
  };
}

function pendingStatus(row: LegacyCallRunRow): "queued" | "held" | "done" {
  if (row.status === "waiting") return "held";
  // A running run's attempt is still in flight; a failed or cancelled one may be retried.
  if (row.status === "running" || row.outcome_json === null) return "queued";
  return "done";
}

function answerOf(
  row: LegacyCallRunRow,
  outcome: JsonValue,
): Parameters<typeof answerCallRun>[1] & { type: "answered" } {
  const cut = isObject(outcome) ? outcome.outputTruncated : undefined;
  const truncated =
    isObject(cut) &&
    typeof cut.chars === "number" &&
    typeof cut.bytes === "number" &&
    typeof cut.sha256 === "string"
      ? { truncated: { chars: cut.chars, bytes: cut.bytes, sha256: cut.sha256 } }
      : {};
  return { type: "answered", observation: observationOf(row, outcome), ...truncated };
}

// Every release recorded an observation; anything else is kept whole, inside one, never dropped.
function observationOf(row: LegacyCallRunRow, outcome: JsonValue): Observation {
  if (isObject(outcome) && outcome.type === "observation") return outcome as unknown as Observation;
  const call = { type: "observation" as const, callId: row.call_id, toolName: row.tool_name };
  if (row.status === "completed") return { ...call, ok: true, output: outcome };
  return {
    ...call,
    ok: false,
    error: "tool_error",
    message: "The outcome recorded by an earlier agent version is not an observation; it is kept as `data`.",
    data: outcome,
  };
}

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
