/**
 * How a run stops: its last save (status, error, the requests it waits on, the taint if it grew),
 * its `run_waiting` / `run_finished` events, and the result its caller gets, which is the run as saved.
 */
import type { ModelMessage } from "@agent/models";
import { emitEvent } from "@agent/tools";
import type { AgentEnvironment, RunResult } from "./agent-environment.js";
import type { RunError, RunState, RunStopReason } from "./run-state.js";
import type { RunTaint } from "./run-taint.js";
import type { RunWriter } from "./run-writer.js";

/** What stopping a run touches: the environment it answers to, its record, its writer and its taint. */
export interface StoppingRun {
  readonly env: AgentEnvironment;
  readonly state: RunState;
  readonly writer: RunWriter;
  readonly taint: RunTaint;
}

/** Saves the run stopped with `status` (with `change`, a last turn not yet saved), announces it and returns it. */
export async function stopRun(
  run: StoppingRun,
  status: RunStopReason,
  error?: RunError,
  change: { appendMessages?: ModelMessage[]; set?: object } = {},
  requestIds: string[] = [],
): Promise<RunResult> {
  const { env, state, writer } = run;
  Object.assign(state, { status, error: error ?? null, requestIds });
  // One time for the last save and the record returned, so the result is the run as saved.
  const at = env.now?.() ?? new Date();
  const taint = run.taint.takeUnsaved() ? { taint: state.taint } : {};
  await writer.commit(
    {
      ...change,
      set: { ...change.set, ...taint, status, error: state.error, requestIds, output: state.output },
    },
    at,
  );
  state.version = writer.version;
  state.updatedAt = at.toISOString();
  const { runId, turns, usage } = state;
  const { events } = env;
  if (events) {
    if (status === "waiting") emitEvent(events, { type: "run_waiting", runId, turn: turns, requestIds });
    emitEvent(events, {
      type: "run_finished",
      runId,
      status,
      turns,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      ...(status === "failed" && error ? { code: error.code } : {}),
    });
  }
  return {
    runId,
    status,
    output: status === "completed" ? state.output : null,
    turns,
    usage: { ...usage },
    requestIds: [...requestIds],
    ...(status === "failed" && error ? { error } : {}),
    state,
  };
}

/** Stops a run whose turn still has calls unanswered: held ones make it wait; else it was interrupted. */
export function stopUnanswered(run: StoppingRun, aborted: boolean): Promise<RunResult> {
  if (aborted) return stopRun(run, "cancelled");
  const held = run.state.pending.filter((call) => call.status === "held");
  if (held.length > 0) {
    return stopRun(
      run,
      "waiting",
      undefined,
      {},
      held.map((call) => call.requestId as string),
    );
  }
  // Some call neither finished nor was held: only an interruption leaves one so. A checkpoint it
  // made is kept: the task's `tasks/cancel` may not have left, or come too late, so a resume
  // follows the task (to its end, cancelled or not) instead of starting the action a second time.
  return stopRun(run, "cancelled");
}
