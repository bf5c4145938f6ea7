/**
 * Calls whose outcome was lost: a call that may have run (its tool may have written a file, sent a
 * message, charged a card) but whose result was never saved, because the store failed or the
 * process driving the run vanished. Running it again on resume could do it twice, so such a call is
 * marked `outcome_unknown` and held until someone decides, per call, what happens to it.
 */
import { capToolOutput, failureObservation, OBSERVATION_ERROR_CODES } from "@agent/tools";
import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import { RUN_ERROR_CODES } from "./run-budget.js";
import type { PendingCall, RunError, ToolCallRecord } from "./run-state.js";

/**
 * What to do with a call whose outcome is unknown: `rerun` runs it again (through the gate, like any
 * call: it may be held again); `answer_unknown` runs nothing and tells the model, as the call's
 * result, that it may or may not have happened (observation error `outcome_unknown`).
 */
export type UnknownOutcomeDecision = "rerun" | "answer_unknown";

/** Whether `call` waits for a decision about its lost outcome. */
export function isOutcomeUnknown(call: PendingCall): boolean {
  return call.status === "outcome_unknown";
}

/** `pending` with every call for which `mayHaveRun` holds marked `outcome_unknown` (a new list when any is). */
export function markOutcomesUnknown(
  pending: readonly PendingCall[],
  mayHaveRun: (call: PendingCall) => boolean,
): PendingCall[] {
  return pending.map((call) => (mayHaveRun(call) ? { ...call, status: "outcome_unknown" } : call));
}

/** The error a run stops with while any of its calls waits for a decision about its lost outcome. */
export function unknownOutcomeError(runId: string, pending: readonly PendingCall[]): RunError {
  const calls = pending.filter(isOutcomeUnknown).map((call) => `${call.callId} (${call.toolName})`);
  return {
    code: RUN_ERROR_CODES.callOutcomeUnknown,
    message: `Run ${runId} has ${calls.length === 1 ? "a call" : "calls"} that may have run but whose outcome was not saved: ${calls.join(", ")}. Nothing more runs until someone decides, for each, to run it again or to tell the model its outcome is unknown.`,
  };
}

/**
 * Applies the operator's decisions to the calls waiting for one: `rerun` makes a call `queued`
 * again, `answer_unknown` makes it `done` with an `outcome_unknown` observation (returned as a record
 * to save). Calls without a decision stay as they are. Throws `invalid_options` for a decision about
 * a call that is not waiting for one, so a mistyped id never runs or answers anything.
 */
export function applyUnknownOutcomeDecisions(
  runId: string,
  turn: number,
  pending: readonly PendingCall[],
  decisions: Readonly<Record<string, UnknownOutcomeDecision>>,
): { pending: PendingCall[]; records: ToolCallRecord[] } {
  for (const callId of Object.keys(decisions)) {
    if (!pending.some((call) => call.callId === callId && isOutcomeUnknown(call))) {
      throw new LoopError(
        LOOP_ERROR_CODES.invalidOptions,
        `Call ${callId} of run ${runId} is not one whose outcome is unknown; only those wait for a decision (the run's pending calls say which).`,
      );
    }
  }
  const records: ToolCallRecord[] = [];
  const decided = pending.map((call): PendingCall => {
    const decision = isOutcomeUnknown(call) ? decisions[call.callId] : undefined;
    if (decision === "rerun") return { ...call, status: "queued" };
    if (decision !== "answer_unknown") return call;
    const observation = failureObservation(
      { callId: call.callId, toolName: call.toolName },
      OBSERVATION_ERROR_CODES.outcomeUnknown,
      "This call may or may not have run: its outcome was lost before it could be saved. Check its effect before relying on it or calling it again.",
    );
    // Short: never cut, so the record needs no sha256.
    const { text, chars, bytes } = capToolOutput(observation);
    records.push({
      callId: call.callId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      turn,
      observation,
      truncated: false,
      chars,
      bytes,
    });
    return {
      toolCallId: call.toolCallId,
      callId: call.callId,
      toolName: call.toolName,
      arguments: call.arguments,
      status: "done",
      result: { content: text, isError: true },
    };
  });
  return { pending: decided, records };
}
