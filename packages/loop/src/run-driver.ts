import type { ModelMessage } from "@agent/models";
import { CallIds, DEFAULT_TOOL_OUTPUT_MAX_CHARS, type JsonValue, type ToolCallOutcome } from "@agent/tools";
import {
  type AgentEnvironment,
  DEFAULT_MAX_ARGUMENT_CHARS,
  DEFAULT_MAX_CALLS_PER_TURN,
  DEFAULT_MAX_CONCURRENT_CALLS,
  type RunResult,
} from "./agent-environment.js";
import { saveFailedRun } from "./failed-run.js";
import { requestModelTurn } from "./model-turn.js";
import { type OfferedTools, OfferedToolsCache } from "./offered-tools.js";
import { allAnswered, appendToolMessages, pendingCallsOf } from "./pending-calls.js";
import { budgetError, isOverBudget } from "./run-budget.js";
import type { PendingCall, RunState, ToolCallRecord } from "./run-state.js";
import { type StoppingRun, stopRun, stopUnanswered } from "./run-stop.js";
import type { RunChange } from "./run-store.js";
import { RunTaint } from "./run-taint.js";
import type { RunWriter } from "./run-writer.js";
import {
  type CallSettlement,
  executionEnvironment,
  runCall,
  runTurnCalls,
  type SettleCall,
  settleCall,
  soleOpenCall,
  type TurnCallsEnvironment,
} from "./turn-calls.js";
import { refuseOverLimits, type TurnLimits } from "./turn-limits.js";
import { isOutcomeUnknown, unknownOutcomeError } from "./unknown-outcomes.js";

/** Drives one run in this process (started or claimed by `startRun` / `resumeRun`), keeping the saved record in step with every decision. */
export class RunDriver {
  readonly #env: AgentEnvironment;
  readonly #state: RunState;
  readonly #writer: RunWriter;
  readonly #signal: AbortSignal;
  readonly #offered: OfferedToolsCache;
  readonly #calls: TurnCallsEnvironment;
  readonly #callIds = new CallIds();
  readonly #taint: RunTaint;
  readonly #limits: TurnLimits;
  readonly #run: StoppingRun;
  // Made once per run, not once per call: the hot path allocates only what it saves.
  readonly #settle: SettleCall = (settlement, outcome) => this.#settled(settlement, outcome);

  constructor(env: AgentEnvironment, state: RunState, writer: RunWriter) {
    this.#env = env;
    this.#state = state;
    this.#writer = writer;
    this.#signal = env.signal ?? new AbortController().signal;
    this.#offered = new OfferedToolsCache(env.isOffered ?? (() => true));
    this.#calls = {
      execution: executionEnvironment({
        tools: env.tools,
        gate: env.gate,
        runId: state.runId,
        cwd: state.cwd,
        timeoutMs: env.toolTimeoutMs,
        signal: env.signal,
        events: env.events,
        onProgress: env.onProgress,
      }),
      runId: state.runId,
      turn: state.turns,
      signal: env.signal,
      events: env.events,
      cap: { maxChars: env.maxToolOutputChars ?? DEFAULT_TOOL_OUTPUT_MAX_CHARS },
      concurrency: env.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS,
      filterObservation: env.filterObservation,
      taintOf: (index) => this.#taint.taintOf(index),
      unsaved: new Set(),
      checkpoint: (callId, checkpoint) => this.#checkpoint(callId, checkpoint),
    };
    this.#limits = {
      maxCalls: env.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN,
      maxArgumentChars: env.maxArgumentChars ?? DEFAULT_MAX_ARGUMENT_CHARS,
    };
    this.#taint = new RunTaint(state, env.flow, env.tools, env.events);
    this.#run = { env, state, writer, taint: this.#taint };
  }

  /** The tools the model is offered now. */
  offer(): OfferedTools {
    return this.#offered.offer(this.#env.tools.list());
  }

  async drive(): Promise<RunResult> {
    try {
      return await this.#loop();
    } catch (error) {
      return await saveFailedRun(this.#writer, this.#state, this.#calls.unsaved, error);
    }
  }

  async #loop(): Promise<RunResult> {
    const state = this.#state;
    for (;;) {
      // A run past its budget does nothing more (a resume given no bigger budget stops here).
      if (isOverBudget(state)) return stopRun(this.#run, "failed", budgetError(state));
      if (state.pending.length > 0) {
        // A call that may have run is never run again, nor its turn answered, until someone decides.
        if (state.pending.some(isOutcomeUnknown)) {
          return stopRun(this.#run, "failed", unknownOutcomeError(state.runId, state.pending));
        }
        this.#calls.turn = state.turns;
        // Judged before any call of the turn runs: its calls share one view of the run's taint.
        const judged = this.#taint.judgeTurn();
        if (judged) await judged;
        const sole = soleOpenCall(state.pending);
        if (sole !== undefined && !this.#signal.aborted) {
          // The usual turn, one call: run in this frame, with no pool (and no async call) around it.
          const call = state.pending[sole] as PendingCall;
          const outcome = await runCall(call, this.#calls, this.#taint.taintOf(sole));
          const settlement = settleCall(sole, call, outcome, this.#calls);
          // Interrupted by the run's signal: it did not complete, and runs again on resume.
          if (!settlement) this.#calls.unsaved.delete(call.callId);
          else await this.#settled(settlement, outcome);
        } else await this.#answerPending();
        if (state.pending.length > 0) return stopUnanswered(this.#run, this.#signal.aborted);
      }
      if (this.#signal.aborted) return stopRun(this.#run, "cancelled");
      if (state.turns >= state.maxTurns) return stopRun(this.#run, "max_turns");
      const offered = this.offer();
      const result = await requestModelTurn(this.#env, state, offered, this.#signal);
      if (!result.ok) {
        const status = result.code === "model_cancelled" || this.#signal.aborted ? "cancelled" : "failed";
        return stopRun(this.#run, status, { code: result.code, message: result.message });
      }
      state.turns += 1;
      // Counted in place: the run's usage object is its own (the store copies what it is given).
      state.usage.inputTokens += result.usage.inputTokens;
      state.usage.outputTokens += result.usage.outputTokens;
      state.toolSetFingerprint = offered.fingerprint;
      const assistant: ModelMessage = {
        role: "assistant",
        content: result.text,
        toolCalls: result.toolCalls,
      };
      state.messages.push(assistant);
      let refused: ToolCallRecord[] | undefined;
      if (result.toolCalls.length > 0) {
        state.pending = pendingCallsOf(result.toolCalls, this.#env, this.#callIds);
        // Past the turn's limits: answered now, never run, their arguments not kept.
        this.#calls.turn = state.turns;
        refused = refuseOverLimits(state.pending, assistant, this.#limits, this.#calls);
        if (refused) state.calls.push(...refused);
      }
      const turn: RunChange & { appendMessages: ModelMessage[] } = {
        appendMessages: [assistant],
        set: {
          turns: state.turns,
          usage: state.usage,
          toolSetFingerprint: offered.fingerprint,
          pending: state.pending,
        },
      };
      if (refused) turn.appendCalls = refused;
      if (result.toolCalls.length === 0) {
        state.output = result.text;
        return stopRun(this.#run, "completed", undefined, turn);
      }
      // Over budget: the turn is saved with its calls unrun, so a resume with a bigger budget runs them.
      if (isOverBudget(state)) return stopRun(this.#run, "failed", budgetError(state), turn);
      // Saved before any tool runs: a resume after this point never asks the model for this turn again.
      await this.#writer.commit(turn);
    }
  }

  /** Runs the open calls of the latest turn, several at a time, or saves a turn already answered. */
  async #answerPending(): Promise<void> {
    const state = this.#state;
    // Every call answered but not yet in the transcript: a record saved between the two updates.
    if (allAnswered(state.pending)) return this.#flushResults(undefined);
    await runTurnCalls(state.pending, this.#calls, this.#settle);
  }

  /** One call of the turn settled: saved before anything else, so a crash never runs it again. */
  #settled({ index, pending, record }: CallSettlement, outcome: ToolCallOutcome): Promise<void> {
    const state = this.#state;
    this.#env.onToolCall?.(pending, outcome);
    state.pending[index] = pending;
    if (record) state.calls.push(record);
    // Saved with the call that brought it: a resume, or the next process, sees the run as tainted.
    const tainted = this.#taint.settle(index, outcome);
    // The turn's last answer: its results go to the transcript in the same update.
    if (allAnswered(state.pending)) return this.#saved(pending.callId, this.#flushResults(record, tainted));
    // A copy: with calls running concurrently, this update may be applied after the next settles.
    const change: RunChange = {
      set: tainted
        ? { pending: state.pending.slice(), taint: state.taint }
        : { pending: state.pending.slice() },
    };
    if (record) change.appendCalls = [record];
    return this.#saved(pending.callId, this.#writer.commit(change));
  }

  /** A running call saved where it stands: kept in its pending entry and saved before it goes on. */
  #checkpoint(callId: string, checkpoint: JsonValue): Promise<void> | undefined {
    const state = this.#state;
    const index = state.pending.findIndex((call) => call.callId === callId && call.status === "queued");
    const call = state.pending[index];
    if (!call) return undefined;
    state.pending[index] = { ...call, checkpoint };
    return this.#writer.commit({ set: { pending: state.pending.slice() } });
  }

  /** Forgets `callId` as unsaved once `saving` is done. */
  #saved(callId: string, saving: Promise<void>): Promise<void> {
    const { unsaved } = this.#calls;
    return saving.then(() => {
      unsaved.delete(callId);
    });
  }

  /** Moves the answered calls' results into the transcript, saving that (and the taint, if it grew) with `record` if given. */
  #flushResults(record: ToolCallRecord | undefined, tainted = false): Promise<void> {
    const state = this.#state;
    const results = appendToolMessages(state.pending, state.messages);
    // One empty list for the run and the update: the store copies what it is given.
    state.pending = [];
    const change: RunChange = {
      appendMessages: results,
      set: tainted ? { pending: state.pending, taint: state.taint } : { pending: state.pending },
    };
    if (record) change.appendCalls = [record];
    return this.#writer.commit(change);
  }
}

/** A new run id: the environment's `createId`, or `run_<uuid>`. */
export function createRunId(env: AgentEnvironment): string {
  return env.createId ? env.createId("run") : `run_${globalThis.crypto.randomUUID()}`;
}
