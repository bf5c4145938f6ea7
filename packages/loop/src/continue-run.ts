import type { ModelMessage } from "@agent/models";
import { emitEvent } from "@agent/tools";
import { type AgentEnvironment, DEFAULT_MAX_TURNS, type RunResult } from "./agent-environment.js";
import { assertPositiveInteger, assertTurnLimits } from "./agent-run.js";
import { isCallRun } from "./call-run.js";
import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import { RunDriver } from "./run-driver.js";
import { type PendingCall, RUN_STATE_FORMAT, type RunState, type ToolCallRecord } from "./run-state.js";
import { assertRunFormat } from "./run-store.js";
import { RunWriter } from "./run-writer.js";

/** What continues a finished run with a new user message. */
export interface ContinueRunOptions {
  runId: string;
  /** The user's new message, appended to the run's transcript after everything the model saw. */
  prompt: string;
  /**
   * Model turns allowed for this prompt; default {@link DEFAULT_MAX_TURNS}. The run's saved limit
   * becomes the turns it made so far plus this, so a run that stopped on `max_turns` can go on.
   */
  maxTurns?: number;
  /** A new token budget for the whole run (the tokens already used still count), saved with it. */
  maxTokens?: number;
}

/**
 * Continues a run that stopped (`completed`, `max_turns`, `cancelled` or `failed`) with a new user
 * message: the same run, its transcript, its taint and its approvals, one more prompt. Claims it as
 * `resumeRun` does (a compare-and-set: of two racing continuations one gets `run_conflict`), then
 * drives the next model turn through the same gate. A call of a cancelled or failed run that never
 * finished is answered to the model as cancelled (it is never run again). Refused with
 * `run_not_continuable`: a run that waits on approvals (decide them and resume it), one running
 * elsewhere, and one with held calls or calls whose outcome is unknown; `run_not_found` when there is none.
 */
export async function continueRun(env: AgentEnvironment, options: ContinueRunOptions): Promise<RunResult> {
  if (typeof options.prompt !== "string" || options.prompt.trim() === "") {
    throw new LoopError(LOOP_ERROR_CODES.invalidOptions, "prompt must be a non-empty string.");
  }
  const turnsForPrompt = options.maxTurns ?? DEFAULT_MAX_TURNS;
  assertPositiveInteger("maxTurns", turnsForPrompt);
  if (options.maxTokens !== undefined) assertPositiveInteger("maxTokens", options.maxTokens);
  assertTurnLimits(env);
  const state = await env.store.loadRun(options.runId);
  if (!state) throw new LoopError(LOOP_ERROR_CODES.runNotFound, `No run ${options.runId}.`);
  assertRunFormat(state);
  assertContinuable(state);
  const now = env.now ?? (() => new Date());
  const { results, records } = answerUnfinished(state);
  const prompt: ModelMessage = { role: "user", content: options.prompt };
  const claim = {
    status: "running" as const,
    owner: env.owner ?? null,
    error: null,
    output: null,
    requestIds: [],
    pending: [],
    // A record of an older format is rewritten as this one, as a resume does.
    format: RUN_STATE_FORMAT,
    maxTurns: state.turns + turnsForPrompt,
    maxTokens: options.maxTokens ?? state.maxTokens ?? null,
    taint: state.taint ?? [],
  };
  const appendMessages = [...results, prompt];
  const change =
    records.length > 0
      ? { set: claim, appendMessages, appendCalls: records }
      : { set: claim, appendMessages };
  const version = await env.store.updateRun(state.runId, state.version, change, now());
  if (version === undefined) {
    throw new LoopError(
      LOOP_ERROR_CODES.runConflict,
      `Run ${state.runId} was changed by another process just now; the new prompt was not added.`,
    );
  }
  Object.assign(state, claim, { version });
  state.messages.push(...appendMessages);
  state.calls.push(...records);
  if (env.events) {
    emitEvent(env.events, {
      type: "run_continued",
      runId: state.runId,
      turn: state.turns,
      promptChars: options.prompt.length,
      maxTurns: state.maxTurns,
    });
  }
  return new RunDriver(env, state, new RunWriter(env.store, state.runId, version, env.now)).drive();
}

function assertContinuable(state: RunState): void {
  const refuse = (why: string): never => {
    throw new LoopError(LOOP_ERROR_CODES.runNotContinuable, `Run ${state.runId} ${why}`);
  };
  if (isCallRun(state)) refuse("is a one-call run (no model drives it): it takes no prompt.");
  if (state.status === "waiting") {
    refuse(
      `is waiting for approval of ${state.requestIds.length === 1 ? "a held call" : `${state.requestIds.length} held calls`} (${state.requestIds.join(", ")}): decide them and resume it; it takes a new prompt once it has stopped.`,
    );
  }
  if (state.status === "running") {
    refuse("is running in another process; give it a new prompt once it has stopped.");
  }
  if (state.pending.some((call) => call.status === "held")) {
    refuse("has held calls: decide them and resume it before giving it a new prompt.");
  }
  if (state.pending.some((call) => call.status === "outcome_unknown")) {
    refuse(
      "has calls whose outcome is unknown: decide whether each runs again when resuming it, then give it a new prompt.",
    );
  }
}

/**
 * The transcript's answers to the latest turn's calls, when the run stopped before it answered them
 * (Ctrl-C, a failure): the model must read a result for every call it made before the next message.
 * A call that finished keeps its result; one that did not is answered as cancelled and never runs.
 */
function answerUnfinished(state: RunState): { results: ModelMessage[]; records: ToolCallRecord[] } {
  const results: ModelMessage[] = [];
  const records: ToolCallRecord[] = [];
  const why =
    state.status === "cancelled"
      ? "the run was interrupted before it finished"
      : `the run stopped (${state.error?.code ?? state.status}) before it finished`;
  for (const call of state.pending) {
    const result = call.result ?? unfinishedResult(why);
    if (call.status !== "done") records.push(cancelledRecord(state, call, result.content));
    results.push({
      role: "tool",
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      content: result.content,
      isError: result.isError,
    });
  }
  return { results, records };
}

function unfinishedResult(why: string): { content: string; isError: boolean } {
  return {
    content: `Cancelled: ${why}, and the user went on with a new message. It may have partly run; it will not run again.`,
    isError: true,
  };
}

function cancelledRecord(state: RunState, call: PendingCall, message: string): ToolCallRecord {
  return {
    callId: call.callId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    turn: state.turns,
    observation: {
      type: "observation",
      ok: false,
      callId: call.callId,
      toolName: call.toolName,
      error: "cancelled",
      message,
    },
    truncated: false,
    chars: message.length,
    bytes: new TextEncoder().encode(message).length,
  };
}
