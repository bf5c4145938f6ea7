/**
 * The one-call runs the `agent` CLI kept in its own table (`runs` in SQLite, `agent_call_runs` in
 * PostgreSQL, with the same columns) until a one-call run became a run of `@agent/loop`: read here
 * once, by the migration step that moves them into the run tables. Never change how a row is read:
 * databases of every earlier release hold such rows. It writes a run of format 3 as `startCallRun`
 * and `settleCallRun` of that format save one, spelled out here rather than imported: the migration
 * runs wherever the schema is opened (child processes of the tests included), so it imports nothing
 * at run time, and a record of format 3 stays readable by every later loop.
 */
import type { PendingCall, RunState, ToolCallRecord } from "@agent/loop";
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
  const call: PendingCall = {
    toolCallId: row.call_id,
    callId: row.call_id,
    toolName: row.tool_name,
    // The input exactly as it was saved: a resume replays it as it is.
    arguments: row.input_json,
    status: pendingStatus(row),
  };
  if (row.request_id !== null) call.requestId = row.request_id;
  const outcome = row.outcome_json === null ? undefined : (JSON.parse(row.outcome_json) as JsonValue);
  return {
    format: 3,
    runId: row.id,
    version: 1,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    provider: "",
    model: "",
    system: null,
    cwd: row.cwd,
    // No model turn: what makes it a one-call run (see `isCallRun`).
    maxTurns: 0,
    maxTokens: null,
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    toolSetFingerprint: row.tool_fingerprint,
    taint: [],
    pending: [call],
    requestIds: row.status === "waiting" && row.request_id !== null ? [row.request_id] : [],
    output: null,
    error: null,
    owner:
      row.owner_pid !== null && row.owner_host !== null ? { pid: row.owner_pid, host: row.owner_host } : null,
    messages: [],
    calls: outcome === undefined ? [] : [recordOf(row, outcome)],
  };
}

function pendingStatus(row: LegacyCallRunRow): PendingCall["status"] {
  if (row.status === "waiting") return "held";
  // A running run's attempt is still in flight; a failed or cancelled one may be retried.
  if (row.status === "running" || row.outcome_json === null) return "queued";
  return "done";
}

function recordOf(row: LegacyCallRunRow, outcome: JsonValue): ToolCallRecord {
  const observation = observationOf(row, outcome);
  const record: ToolCallRecord = {
    callId: row.call_id,
    toolCallId: row.call_id,
    toolName: row.tool_name,
    turn: 0,
    observation,
    truncated: false,
    ...sizeOf(observation),
  };
  // The CLI cut long outputs and said so, with the whole text's size and sha256.
  const cut = isObject(outcome) ? outcome.outputTruncated : undefined;
  if (
    isObject(cut) &&
    typeof cut.chars === "number" &&
    typeof cut.bytes === "number" &&
    typeof cut.sha256 === "string"
  ) {
    Object.assign(record, { truncated: true, chars: cut.chars, bytes: cut.bytes, sha256: cut.sha256 });
  }
  return record;
}

// The CLI kept no size of an output within its cap: the size of the output as JSON text stands for it.
function sizeOf(observation: Observation): { chars: number; bytes: number } {
  const text = JSON.stringify(observation.ok ? observation.output : observation.message) ?? "";
  return { chars: text.length, bytes: new TextEncoder().encode(text).length };
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
