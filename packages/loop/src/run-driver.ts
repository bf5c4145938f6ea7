import { messageOf } from "@agent/base";
import type { ModelMessage, ModelRequest, ModelResult, ModelToolCall } from "@agent/models";
import {
  type AgentEventInput,
  DEFAULT_TOOL_OUTPUT_MAX_CHARS,
  emitEvent,
  type JsonValue,
  type ToolCallOutcome,
} from "@agent/tools";
import {
  type AgentEnvironment,
  DEFAULT_MAX_ARGUMENT_CHARS,
  DEFAULT_MAX_CALLS_PER_TURN,
  DEFAULT_MAX_CONCURRENT_CALLS,
  type RunResult,
} from "./agent-environment.js";
import { CallIds } from "./call-ids.js";
import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import { type OfferedTools, OfferedToolsCache } from "./offered-tools.js";
import { budgetError, isOverBudget, RUN_ERROR_CODES } from "./run-budget.js";
import type { PendingCall, RunError, RunState, RunStopReason, ToolCallRecord } from "./run-state.js";
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
import {
  describeLost,
  describeUnsaved,
  isOutcomeUnknown,
  markOutcomesUnknown,
  unknownOutcomeError,
} from "./unknown-outcomes.js";

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
  }

  /** The tools the model is offered now. */
  offer(): OfferedTools {
    return this.#offered.offer(this.#env.tools.list());
  }

  async drive(): Promise<RunResult> {
    try {
      return await this.#loop();
    } catch (error) {
      // Another process owns the run now: leave its record alone.
      if (LoopError.isInstance(error) && error.code === "run_conflict") throw error;
      const { unsaved } = this.#calls;
      let pending = this.#state.pending;
      // Saved with everything a store failure left unsaved, so a call that settled keeps its outcome.
      const saved = await this.#writer.salvage(() => {
        // Built once every update in flight settled: a call still running now may finish unrecorded.
        pending = markOutcomesUnknown(
          this.#state.pending,
          (call) => call.status === "queued" && unsaved.has(call.callId),
        );
        return {
          set: {
            status: "failed",
            error: { code: RUN_ERROR_CODES.internalError, message: messageOf(error) },
            pending,
            // Whatever the taint grew by, saved or not: a run's taint is never lost to a failure.
            taint: this.#state.taint,
          },
        };
      });
      if (unsaved.size === 0) throw error;
      throw new LoopError(
        LOOP_ERROR_CODES.runNotSaved,
        `Run ${this.#state.runId} could not be saved (${messageOf(error)}). ${
          saved ? describeLost(pending) : describeUnsaved(this.#state.pending, unsaved)
        }`,
        { cause: error },
      );
    }
  }

  async #loop(): Promise<RunResult> {
    const state = this.#state;
    for (;;) {
      // A run past its budget does nothing more (a resume given no bigger budget stops here).
      if (isOverBudget(state)) return this.#stop("failed", budgetError(state));
      if (state.pending.length > 0) {
        // A call that may have run is never run again, nor its turn answered, until someone decides.
        if (state.pending.some(isOutcomeUnknown)) {
          return this.#stop("failed", unknownOutcomeError(state.runId, state.pending));
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
        if (state.pending.length > 0) return this.#stopUnanswered();
      }
      if (this.#signal.aborted) return this.#stop("cancelled");
      if (state.turns >= state.maxTurns) return this.#stop("max_turns");
      const offered = this.offer();
      const result = await this.#requestTurn(offered);
      if (!result.ok) {
        const status = result.code === "model_cancelled" || this.#signal.aborted ? "cancelled" : "failed";
        return this.#stop(status, { code: result.code, message: result.message });
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
        state.pending = this.#pendingCalls(result.toolCalls);
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
        return this.#stop("completed", undefined, turn);
      }
      // Over budget: the turn is saved with its calls unrun, so a resume with a bigger budget runs them.
      if (isOverBudget(state)) return this.#stop("failed", budgetError(state), turn);
      // Saved before any tool runs: a resume after this point never asks the model for this turn again.
      await this.#writer.commit(turn);
    }
  }

  /** Runs the open calls of the latest turn, several at a time, or saves a turn already answered. */
  async #answerPending(): Promise<void> {
    const state = this.#state;
    // Every call answered but not yet in the transcript: a record saved between the two updates.
    if (allDone(state.pending)) return this.#flushResults(undefined);
    await runTurnCalls(state.pending, this.#calls, this.#settle);
  }

  /** Stops a run whose turn still has calls unanswered: held ones make it wait; else it was interrupted. */
  #stopUnanswered(): Promise<RunResult> {
    const state = this.#state;
    if (this.#signal.aborted) return this.#stop("cancelled");
    const held = state.pending.filter((call) => call.status === "held");
    if (held.length > 0) {
      return this.#stop(
        "waiting",
        undefined,
        {},
        held.map((call) => call.requestId as string),
      );
    }
    // Some call neither finished nor was held: only an interruption leaves one so. A checkpoint it
    // made is kept: the task's `tasks/cancel` may not have left, or come too late, so a resume
    // follows the task (to its end, cancelled or not) instead of starting the action a second time.
    return this.#stop("cancelled");
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
    if (allDone(state.pending)) return this.#saved(pending.callId, this.#flushResults(record, tainted));
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
    const { pending } = state;
    const results = new Array<ModelMessage>(pending.length);
    for (let index = 0; index < pending.length; index += 1) {
      const result = toolMessage(pending[index] as PendingCall);
      results[index] = result;
      state.messages.push(result);
    }
    // One empty list for the run and the update: the store copies what it is given.
    state.pending = [];
    const change: RunChange = {
      appendMessages: results,
      set: tainted ? { pending: state.pending, taint: state.taint } : { pending: state.pending },
    };
    if (record) change.appendCalls = [record];
    return this.#writer.commit(change);
  }

  /** The next model turn; wrapped (timed, announced) only for the hooks and events someone listens to. */
  #requestTurn(offered: OfferedTools): Promise<ModelResult> {
    const { model, onText, onModelRequest, maxOutputTokens, events } = this.#env;
    const state = this.#state;
    // Members set one by one rather than spread from conditional objects: no object made to be thrown away.
    const request: ModelRequest = {
      messages: state.messages,
      tools: offered.definitions,
      signal: this.#signal,
    };
    if (state.system !== null) request.system = state.system;
    if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
    if (onText) request.onText = onText;
    if (!onModelRequest && !events) return model.createTurn(request);
    return this.#observedTurn(request, state.turns + 1);
  }

  async #observedTurn(request: ModelRequest, turn: number): Promise<ModelResult> {
    const { model, onModelRequest, events } = this.#env;
    onModelRequest?.("started", turn);
    const started = performance.now();
    let result: ModelResult;
    try {
      result = await model.createTurn(request);
    } finally {
      onModelRequest?.("finished", turn);
    }
    if (events) emitEvent(events, modelRequestEvent(this.#state.runId, model, turn, started, result));
    return result;
  }

  #pendingCalls(calls: readonly ModelToolCall[]): PendingCall[] {
    const pending = new Array<PendingCall>(calls.length);
    for (let index = 0; index < calls.length; index += 1) {
      const call = calls[index] as ModelToolCall;
      pending[index] = {
        toolCallId: call.id,
        callId: this.#env.createId ? this.#env.createId("call") : this.#callIds.next(),
        toolName: call.name,
        arguments: call.arguments,
        status: "queued",
      };
    }
    return pending;
  }

  async #stop(
    status: RunStopReason,
    error?: RunError,
    change: { appendMessages?: ModelMessage[]; set?: object } = {},
    requestIds: string[] = [],
  ): Promise<RunResult> {
    const state = this.#state;
    Object.assign(state, { status, error: error ?? null, requestIds });
    // One time for the last save and the record returned, so the result is the run as saved.
    const at = this.#env.now?.() ?? new Date();
    const taint = this.#taint.takeUnsaved() ? { taint: state.taint } : {};
    await this.#writer.commit(
      {
        ...change,
        set: { ...change.set, ...taint, status, error: state.error, requestIds, output: state.output },
      },
      at,
    );
    state.version = this.#writer.version;
    state.updatedAt = at.toISOString();
    const { runId, turns, usage } = state;
    const { events } = this.#env;
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
}

function modelRequestEvent(
  runId: string,
  model: AgentEnvironment["model"],
  turn: number,
  started: number,
  result: ModelResult,
): AgentEventInput {
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  const facts = { runId, provider: model.provider, model: model.model, turn, durationMs };
  return result.ok
    ? {
        type: "model_request_finished",
        ...facts,
        ok: true,
        stopReason: result.stopReason,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        toolCalls: result.toolCalls.length,
      }
    : {
        type: "model_request_finished",
        ...facts,
        ok: false,
        code: result.code,
        ...(result.status === undefined ? {} : { status: result.status }),
        inputTokens: 0,
        outputTokens: 0,
        toolCalls: 0,
      };
}

function allDone(pending: readonly PendingCall[]): boolean {
  for (const call of pending) if (call.status !== "done") return false;
  return true;
}

function toolMessage(call: PendingCall): ModelMessage {
  const result = call.result ?? { content: "", isError: true };
  return {
    role: "tool",
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    content: result.content,
    isError: result.isError,
  };
}

/** A new run id: the environment's `createId`, or `run_<uuid>`. */
export function createRunId(env: AgentEnvironment): string {
  return env.createId ? env.createId("run") : `run_${globalThis.crypto.randomUUID()}`;
}
