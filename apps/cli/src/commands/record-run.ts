import type { JsonValue, ToolCallOutcome } from "@agent/tools";
import type { Runtime } from "../runtime/runtime.js";
import type { RunStatus } from "../state/index.js";
import { whileUnavailable } from "../state/while-unavailable.js";

/** What recording a one-call run needs of the runtime: the state, and the registry its tool's fingerprint comes from. */
export type RunRecordingRuntime = Pick<Runtime, "state" | "registry">;

/** One call of a run, as recorded: replaying it exactly is what binds it to its approval. */
export interface RunCall {
  runId: string;
  callId: string;
  toolName: string;
  input: JsonValue;
  cwd: string;
}
/**
 * Records how a one-call run ended (or that it failed before any outcome, so it may be resumed).
 * A shared database may be restarting: the outcome of a call that ran must not be lost, or a later
 * resume could run it again, so an unreachable database is retried for a while before giving up.
 */
export async function recordRun(
  runtime: RunRecordingRuntime,
  call: RunCall,
  outcome: ToolCallOutcome | undefined,
  signal: AbortSignal,
): Promise<void> {
  if (!outcome) {
    await whileUnavailable(() =>
      runtime.state.updateRun(call.runId, { status: signal.aborted ? "cancelled" : "failed" }),
    );
    return;
  }
  await whileUnavailable(() =>
    runtime.state.updateRun(call.runId, {
      status: statusOf(outcome),
      ...(outcome.type === "waiting"
        ? { requestId: outcome.requestId }
        : { outcome: outcome as unknown as JsonValue }),
      ...fingerprintOf(runtime, call.toolName),
    }),
  );
}

function statusOf(outcome: ToolCallOutcome): RunStatus {
  if (outcome.type === "waiting") return "waiting";
  if (outcome.ok) return "completed";
  return outcome.error === "cancelled" ? "cancelled" : "failed";
}

function fingerprintOf(runtime: Pick<Runtime, "registry">, toolName: string): { toolFingerprint?: string } {
  const fingerprint = runtime.registry.get(toolName)?.fingerprint;
  return fingerprint === undefined ? {} : { toolFingerprint: fingerprint };
}
