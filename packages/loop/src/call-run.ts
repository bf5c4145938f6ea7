/**
 * A one-call run: a run of the loop with no model, holding the one call its caller asked for, that
 * stops once that call is answered (`agent call` is one). It is a {@link RunState} like any other,
 * saved by the same stores through the same compare-and-set on its version, so there is one model
 * of a run: its transcript is empty, `maxTurns` is 0 (no model turn is ever allowed), its single
 * pending call is the call, and each answer is a {@link ToolCallRecord} in `calls`.
 */
import { capToolOutput, type JsonValue, type Observation } from "@agent/tools";
import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import { type PendingCall, RUN_STATE_FORMAT, type RunHeader, type RunState } from "./run-state.js";
import { applyRunChange, type RunChange, type RunStore } from "./run-store.js";
import { RunWriter } from "./run-writer.js";

/** What starts a one-call run. */
export interface StartCallRunOptions {
  toolName: string;
  /** The call's input as given: saved as JSON text, and replayed as it is when the run resumes. */
  input: JsonValue;
  /** Where the call runs (approvals bind to it). */
  cwd: string;
  /** Defaults to `run_<uuid>`. */
  runId?: string;
  /** Defaults to `call_<uuid>`. */
  callId?: string;
  /** Who runs it now (opaque to the loop, as for every run). */
  owner?: JsonValue;
  now?: () => Date;
}

/** The one call of a one-call run, as it was asked for. */
export interface CallRunCall {
  runId: string;
  callId: string;
  toolName: string;
  input: JsonValue;
  cwd: string;
}

/**
 * How the call of a one-call run was answered, as its caller saves it: `held` for an approval;
 * `answered` with the observation to keep (its status `completed` unless the observation failed);
 * `unanswered` when it stopped before any outcome (the call may be replayed by a resume).
 */
export type CallRunAnswer =
  | { type: "held"; requestId: string; toolFingerprint?: string }
  | {
      type: "answered";
      observation: Observation;
      /** The whole output's size and sha256 when the observation kept only its beginning. */
      truncated?: { chars: number; bytes: number; sha256: string };
      toolFingerprint?: string;
    }
  | { type: "unanswered"; status: "failed" | "cancelled" };

/** Whether `header` is a one-call run's: the only runs that allow no model turn. */
export function isCallRun(header: Pick<RunHeader, "maxTurns">): boolean {
  return header.maxTurns === 0;
}

/** Saves a new one-call run, `running`, its call queued; throws `run_exists` if the id is taken. */
export async function startCallRun(store: RunStore, options: StartCallRunOptions): Promise<RunState> {
  const state = newCallRun(options, options.now?.() ?? new Date());
  await store.createRun(state);
  return state;
}

/** The record of a new one-call run, not yet saved. */
function newCallRun(options: Omit<StartCallRunOptions, "now">, now: Date): RunState {
  const at = now.toISOString();
  const runId = options.runId ?? `run_${globalThis.crypto.randomUUID()}`;
  const callId = options.callId ?? `call_${globalThis.crypto.randomUUID()}`;
  return {
    format: RUN_STATE_FORMAT,
    runId,
    version: 1,
    status: "running",
    createdAt: at,
    updatedAt: at,
    provider: "",
    model: "",
    system: null,
    cwd: options.cwd,
    maxTurns: 0,
    maxTokens: null,
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    toolSetFingerprint: null,
    taint: [],
    pending: [
      {
        toolCallId: callId,
        callId,
        toolName: options.toolName,
        arguments: JSON.stringify(options.input),
        status: "queued",
      },
    ],
    requestIds: [],
    output: null,
    error: null,
    owner: options.owner ?? null,
    messages: [],
    calls: [],
  };
}

/** The call of a one-call run; throws `invalid_options` for a run of any other kind. */
export function callOfCallRun(state: RunState): CallRunCall {
  const call = soleCall(state);
  return {
    runId: state.runId,
    callId: call.callId,
    toolName: call.toolName,
    input: JSON.parse(call.arguments) as JsonValue,
    cwd: state.cwd,
  };
}

/**
 * Claims a one-call run for another attempt at its call: sets it `running`, owned by `owner`, its
 * call queued again, if its version is still the one read (of two racing claims, one wins). Returns
 * the run as claimed, or `undefined` when another process changed it first. A `completed` run is
 * refused (`run_not_resumable`: its call is never run twice by accident), and so is a `running` one
 * unless `canTakeOver` says its process is gone.
 */
export async function claimCallRun(
  store: RunStore,
  state: RunState,
  options: { owner: JsonValue; now?: () => Date; canTakeOver?: (state: RunState) => boolean },
): Promise<RunState | undefined> {
  if (state.status === "completed" || (state.status === "running" && !options.canTakeOver?.(state))) {
    throw new LoopError(
      LOOP_ERROR_CODES.runNotResumable,
      `Run ${state.runId} is ${state.status === "completed" ? "completed: its call ran" : "running in another process"}; it is not claimed again.`,
    );
  }
  // The request that last held it stays with it, so the run still says which approval it went through.
  const { result: _answer, ...call } = soleCall(state);
  const set = {
    status: "running" as const,
    owner: options.owner,
    error: null,
    requestIds: [],
    format: RUN_STATE_FORMAT,
    pending: [{ ...call, status: "queued" as const }],
  };
  const at = options.now?.() ?? new Date();
  const version = await store.updateRun(state.runId, state.version, { set }, at);
  if (version === undefined) return undefined;
  return { ...state, ...set, version, updatedAt: at.toISOString() };
}

/**
 * Saves how the call of a claimed (or just started) one-call run was answered, as one
 * compare-and-set on `state.version`, and returns the run as saved. Throws `run_conflict` when the
 * run changed elsewhere since (another process took it over), and whatever the store throws.
 */
export async function settleCallRun(
  store: RunStore,
  state: RunState,
  answer: CallRunAnswer,
  now?: () => Date,
): Promise<RunState> {
  const at = now?.() ?? new Date();
  const change = callRunChange(state, answer);
  const writer = new RunWriter(store, state.runId, state.version, now);
  await writer.commit(change, at);
  return { ...applyCallRunChange(state, change, at), version: writer.version };
}

function applyCallRunChange(state: RunState, change: RunChange, at: Date): RunState {
  return {
    ...applyRunChange(state, change, at),
    messages: state.messages,
    calls: change.appendCalls ? [...state.calls, ...change.appendCalls] : state.calls,
  };
}

function callRunChange(state: RunState, answer: CallRunAnswer): RunChange {
  const call = soleCall(state);
  const fingerprint =
    answer.type !== "unanswered" && answer.toolFingerprint !== undefined
      ? { toolSetFingerprint: answer.toolFingerprint }
      : {};
  if (answer.type === "unanswered") {
    return { set: { status: answer.status, owner: null, pending: [{ ...call, status: "queued" }] } };
  }
  if (answer.type === "held") {
    const held: PendingCall = { ...call, status: "held", requestId: answer.requestId };
    return {
      set: {
        status: "waiting",
        owner: null,
        pending: [held],
        requestIds: [answer.requestId],
        ...fingerprint,
      },
    };
  }
  const { observation } = answer;
  // The size of the whole output: what the observation kept, unless its caller cut it.
  const whole = answer.truncated ?? capToolOutput(observation, { maxChars: Number.MAX_SAFE_INTEGER });
  const record = {
    callId: call.callId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    turn: 0,
    observation,
    truncated: answer.truncated !== undefined,
    chars: whole.chars,
    bytes: whole.bytes,
    ...(answer.truncated && { sha256: answer.truncated.sha256 }),
  };
  // No model reads the answer: the whole observation is in the call's record, not copied into `result`.
  const { result: _earlier, ...done } = call;
  return {
    set: {
      status: statusOf(observation),
      owner: null,
      pending: [{ ...done, status: "done" }],
      ...fingerprint,
    },
    appendCalls: [record],
  };
}

function statusOf(observation: Observation): "completed" | "failed" | "cancelled" {
  if (observation.ok) return "completed";
  return observation.error === "cancelled" ? "cancelled" : "failed";
}

function soleCall(state: RunState): PendingCall {
  const call = state.pending[0];
  if (!isCallRun(state) || state.pending.length !== 1 || call === undefined) {
    throw new LoopError(
      LOOP_ERROR_CODES.invalidOptions,
      `Run ${state.runId} is not a one-call run (it allows model turns, or holds ${state.pending.length} calls).`,
    );
  }
  return call;
}
