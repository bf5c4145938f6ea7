import { type CallRunAnswer, type CallRunCall, type RunState, settleCallRun } from "@agent/loop";
import type { ToolCallOutcome } from "@agent/tools";
import type { CappedOutcome } from "../runtime/output-cap.js";
import type { Runtime } from "../runtime/runtime.js";

/** What recording a one-call run needs of the runtime: the state, and the registry its tool's fingerprint comes from. */
export type RunRecordingRuntime = Pick<Runtime, "state" | "registry">;

/** One call of a run, as recorded: replaying it exactly is what binds it to its approval. */
export type RunCall = CallRunCall;

/**
 * Records how a one-call run ended (or that it failed before any outcome, so it may be resumed),
 * as one compare-and-set on the run's version. A shared database may be restarting: the outcome of
 * a call that ran must not be lost, or a later resume could run it again, so the PostgreSQL state
 * retries an unreachable database for a while before giving up (see `retryingRunStore`).
 */
export async function recordRun(
  runtime: RunRecordingRuntime,
  run: RunState,
  capped: Pick<CappedOutcome, "truncated"> & { outcome: ToolCallOutcome | undefined },
  signal: AbortSignal,
): Promise<void> {
  await settleCallRun(runtime.state.runs, run, answerOf(runtime, capped, signal));
}

function answerOf(
  runtime: Pick<Runtime, "registry">,
  { outcome, truncated }: Pick<CappedOutcome, "truncated"> & { outcome: ToolCallOutcome | undefined },
  signal: AbortSignal,
): CallRunAnswer {
  if (!outcome) return { type: "unanswered", status: signal.aborted ? "cancelled" : "failed" };
  const fingerprint = runtime.registry.get(outcome.toolName)?.fingerprint;
  const tool = fingerprint === undefined ? {} : { toolFingerprint: fingerprint };
  if (outcome.type === "waiting") return { type: "held", requestId: outcome.requestId, ...tool };
  const whole = truncated && {
    truncated: { chars: truncated.chars, bytes: truncated.bytes, sha256: truncated.sha256 },
  };
  return { type: "answered", observation: outcome, ...whole, ...tool };
}
