/**
 * A run stopped by an error (a store that went away, a model client that threw): saved `failed`,
 * in one last update, with everything the failure left unsaved, and the calls that may have run
 * without their outcome being saved marked `outcome_unknown` (see unknown-outcomes.ts).
 */
import { messageOf } from "@agent/base";
import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import { RUN_ERROR_CODES } from "./run-budget.js";
import type { PendingCall, RunState } from "./run-state.js";
import type { RunWriter } from "./run-writer.js";
import { isOutcomeUnknown, markOutcomesUnknown } from "./unknown-outcomes.js";

/**
 * Saves the run failed by `error` and throws: `error` itself when every call's outcome was saved
 * (or another process owns the run now, whose record is left alone), else `run_not_saved` saying
 * which calls may have run unrecorded. `unsaved`: the calls handed to the executor and not yet saved.
 */
export async function saveFailedRun(
  writer: RunWriter,
  state: RunState,
  unsaved: ReadonlySet<string>,
  error: unknown,
): Promise<never> {
  if (LoopError.isInstance(error) && error.code === "run_conflict") throw error;
  let pending = state.pending;
  // Saved with everything a store failure left unsaved, so a call that settled keeps its outcome.
  const saved = await writer.salvage(() => {
    // Built once every update in flight settled: a call still running now may finish unrecorded.
    pending = markOutcomesUnknown(
      state.pending,
      (call) => call.status === "queued" && unsaved.has(call.callId),
    );
    return {
      set: {
        status: "failed",
        error: { code: RUN_ERROR_CODES.internalError, message: messageOf(error) },
        pending,
        // Whatever the taint grew by, saved or not: a run's taint is never lost to a failure.
        taint: state.taint,
      },
    };
  });
  if (unsaved.size === 0) throw error;
  throw new LoopError(
    LOOP_ERROR_CODES.runNotSaved,
    `Run ${state.runId} could not be saved (${messageOf(error)}). ${
      saved ? describeLost(pending) : describeUnsaved(state.pending, unsaved)
    }`,
    { cause: error },
  );
}

/** One sentence on what a failed save left: which calls' outcomes are unknown, or that none is. */
function describeLost(pending: readonly PendingCall[]): string {
  const unknown = pending.filter(isOutcomeUnknown);
  if (unknown.length === 0) {
    return "Every call that ran has its outcome in the run; it may be resumed once the store is back.";
  }
  const calls = unknown.map((call) => `${call.callId} (${call.toolName})`).join(", ");
  return `${calls} may have run, and ${unknown.length === 1 ? "its outcome was" : "their outcomes were"} not saved: marked outcome_unknown, never run again until someone decides.`;
}

/** One sentence on calls whose outcomes were not saved at all (the store stayed unreachable). */
function describeUnsaved(pending: readonly PendingCall[], unsaved: ReadonlySet<string>): string {
  const calls = pending
    .filter((call) => unsaved.has(call.callId))
    .map((call) => `${call.callId} (${call.toolName})`);
  const list = calls.length > 0 ? calls.join(", ") : "Calls of its latest turn";
  return `${list} may have run, and nothing of it could be saved: resuming it (once the store is back) holds such calls as outcome_unknown, never running them again until someone decides.`;
}
