import type { ModelMessage, ModelResult, ModelToolCall } from "@agent/models";
import { DEFAULT_TOOL_OUTPUT_MAX_CHARS, emitEvent, NULL_EVENT_SINK } from "@agent/tools";
import {
  type AgentEnvironment,
  DEFAULT_MAX_CONCURRENT_CALLS,
  DEFAULT_MAX_TURNS,
  type RunResult,
} from "./agent-environment.js";
import { LoopError } from "./errors.js";
import { type OfferedTools, OfferedToolsCache } from "./offered-tools.js";
import {
  type PendingCall,
  RUN_STATE_FORMAT,
  type RunError,
  type RunState,
  type RunStopReason,
  type ToolCallRecord,
} from "./run-state.js";
import { assertRunFormat } from "./run-store.js";
import { RunWriter } from "./run-writer.js";
import { runTurnCalls } from "./turn-calls.js";

/** What starts a run. */
export interface StartRunOptions {
  prompt: string;
  /** The run's system prompt. */
  system?: string;
  /** Model turns allowed; default {@link DEFAULT_MAX_TURNS}. Saved with the run. */
  maxTurns?: number;
  runId?: string;
}

/** What resumes a run. */
export interface ResumeRunOptions {
  runId: string;
  /**
   * Whether a run marked `running` may be taken over (its process is gone). Without it such a run
   * is refused: nobody else can tell whether its owner still drives it.
   */
  canTakeOver?: (state: RunState) => boolean;
}

/**
 * Starts a run: saves it, then drives it (model turn, each tool call through the gate, results back
 * to the model) until the model ends its turn or something stops it. Never throws for the run's own
 * outcome (a model failure, a held call, a Ctrl-C): that is its stop reason. Throws `LoopError` for
 * misuse, and whatever the store throws.
 */
export async function startRun(env: AgentEnvironment, options: StartRunOptions): Promise<RunResult> {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isSafeInteger(maxTurns) || maxTurns < 1) {
    throw new LoopError("invalid_options", `maxTurns must be a positive integer, got ${String(maxTurns)}.`);
  }
  const now = env.now ?? (() => new Date());
  const at = now().toISOString();
  const state: RunState = {
    format: RUN_STATE_FORMAT,
    runId: options.runId ?? createId(env, "run"),
    version: 1,
    status: "running",
    createdAt: at,
    updatedAt: at,
    provider: env.model.provider,
    model: env.model.model,
    system: options.system ?? null,
    cwd: env.cwd,
    maxTurns,
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    toolSetFingerprint: null,
    pending: [],
    requestIds: [],
    output: null,
    error: null,
    owner: env.owner ?? null,
    messages: [{ role: "user", content: options.prompt }],
    calls: [],
  };
  await env.store.createRun(state);
  emitEvent(env.events ?? NULL_EVENT_SINK, {
    type: "run_started",
    runId: state.runId,
    provider: state.provider,
    model: state.model,
    maxTurns,
  });
  return new RunDriver(env, state, new RunWriter(env.store, state.runId, state.version, now)).drive();
}

/**
 * Resumes a waiting, failed or cancelled run where it stopped: claims it (a compare-and-set, so of
 * two racing resumes one gets `run_conflict` and runs nothing), re-checks held calls through the gate
 * (a grant is consumed once), runs calls that never completed, then continues with the next model
 * turn. A model request that produced a turn and a call that completed are never repeated. A
 * `completed` or `max_turns` run is refused with `run_not_resumable`.
 */
export async function resumeRun(env: AgentEnvironment, options: ResumeRunOptions): Promise<RunResult> {
  const state = await env.store.loadRun(options.runId);
  if (!state) throw new LoopError("run_not_found", `No run ${options.runId}.`);
  assertRunFormat(state);
  assertResumable(state, options);
  const now = env.now ?? (() => new Date());
  const claim = { status: "running" as const, owner: env.owner ?? null, error: null, requestIds: [] };
  const version = await env.store.updateRun(state.runId, state.version, { set: claim }, now());
  if (version === undefined) {
    throw new LoopError(
      "run_conflict",
      `Run ${state.runId} was claimed by another process just now; nothing was run here.`,
    );
  }
  Object.assign(state, claim, { version });
  const driver = new RunDriver(env, state, new RunWriter(env.store, state.runId, version, now));
  emitEvent(env.events ?? NULL_EVENT_SINK, {
    type: "run_resumed",
    runId: state.runId,
    turn: state.turns,
    toolSetChanged: state.toolSetFingerprint !== driver.offer().fingerprint,
  });
  return driver.drive();
}

function assertResumable(state: RunState, options: ResumeRunOptions): void {
  if (state.status === "completed" || state.status === "max_turns") {
    throw new LoopError(
      "run_not_resumable",
      `Run ${state.runId} stopped for good (${state.status}); start a new run to go on.`,
    );
  }
  if (state.status === "running" && !options.canTakeOver?.(state)) {
    throw new LoopError(
      "run_not_resumable",
      `Run ${state.runId} is running in another process; resume it when that one stops.`,
    );
  }
}

/** Drives one run in this process, keeping the saved record in step with every decision. */
class RunDriver {
  readonly #env: AgentEnvironment;
  readonly #state: RunState;
  readonly #writer: RunWriter;
  readonly #signal: AbortSignal;
  readonly #offered: OfferedToolsCache;

  constructor(env: AgentEnvironment, state: RunState, writer: RunWriter) {
    this.#env = env;
    this.#state = state;
    this.#writer = writer;
    this.#signal = env.signal ?? new AbortController().signal;
    this.#offered = new OfferedToolsCache(env.isOffered ?? (() => true));
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
      await this.#writer
        .commit({ set: { status: "failed", error: { code: "internal_error", message: messageOf(error) } } })
        .catch(() => undefined);
      throw error;
    }
  }

  async #loop(): Promise<RunResult> {
    const state = this.#state;
    for (;;) {
      if (state.pending.length > 0) {
        const stopped = await this.#answerPending();
        if (stopped) return stopped;
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
      state.usage = {
        inputTokens: state.usage.inputTokens + result.usage.inputTokens,
        outputTokens: state.usage.outputTokens + result.usage.outputTokens,
      };
      state.toolSetFingerprint = offered.fingerprint;
      const assistant: ModelMessage = {
        role: "assistant",
        content: result.text,
        toolCalls: result.toolCalls,
      };
      state.messages.push(assistant);
      const progress = { turns: state.turns, usage: state.usage, toolSetFingerprint: offered.fingerprint };
      if (result.toolCalls.length === 0) {
        state.output = result.text;
        return this.#stop("completed", undefined, { appendMessages: [assistant], set: progress });
      }
      state.pending = result.toolCalls.map((call) => this.#pendingCall(call));
      // Saved before any tool runs: a resume after this point never asks the model for this turn again.
      await this.#writer.commit({
        appendMessages: [assistant],
        set: { ...progress, pending: state.pending },
      });
    }
  }

  /** Runs the open calls of the latest turn; returns a result if the run stops (held, interrupted). */
  async #answerPending(): Promise<RunResult | undefined> {
    const state = this.#state;
    const env = this.#env;
    const flush = async (calls: { appendCalls?: ToolCallRecord[] }) => {
      const results = state.pending.map(toolMessage);
      state.messages.push(...results);
      state.pending = [];
      await this.#writer.commit({ ...calls, appendMessages: results, set: { pending: [] } });
    };
    // Every call answered but not yet in the transcript: a record saved between the two updates.
    if (state.pending.every((call) => call.status === "done")) await flush({});
    if (state.pending.length === 0) return undefined;
    await runTurnCalls(
      state.pending,
      {
        tools: env.tools,
        gate: env.gate,
        runId: state.runId,
        cwd: state.cwd,
        turn: state.turns,
        timeoutMs: env.toolTimeoutMs,
        signal: env.signal,
        events: env.events,
        maxChars: env.maxToolOutputChars ?? DEFAULT_TOOL_OUTPUT_MAX_CHARS,
        concurrency: env.maxConcurrentCalls ?? DEFAULT_MAX_CONCURRENT_CALLS,
        onProgress: env.onProgress,
        onCall: env.onToolCall,
        filterObservation: env.filterObservation,
      },
      async ({ index, pending, record }) => {
        state.pending[index] = pending;
        if (record) state.calls.push(record);
        const calls = record ? { appendCalls: [record] } : {};
        // The turn's last answer: its results go to the transcript in the same update.
        if (state.pending.every((call) => call.status === "done")) return flush(calls);
        // Each call is saved as it settles, so a crash later never runs a completed call again.
        await this.#writer.commit({ ...calls, set: { pending: [...state.pending] } });
      },
    );
    if (state.pending.length === 0) return undefined;
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
    // Some call neither finished nor was held: only an interruption leaves one so.
    return this.#stop("cancelled");
  }

  async #requestTurn(offered: OfferedTools): Promise<ModelResult> {
    const { model, onText, onModelRequest, maxOutputTokens } = this.#env;
    const state = this.#state;
    const turn = state.turns + 1;
    onModelRequest?.("started", turn);
    const started = performance.now();
    let result: ModelResult;
    try {
      result = await model.createTurn({
        ...(state.system === null ? {} : { system: state.system }),
        messages: state.messages,
        tools: offered.definitions,
        signal: this.#signal,
        ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
        ...(onText ? { onText } : {}),
      });
    } finally {
      onModelRequest?.("finished", turn);
    }
    const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
    const facts = { runId: state.runId, provider: model.provider, model: model.model, turn, durationMs };
    emitEvent(
      this.#env.events ?? NULL_EVENT_SINK,
      result.ok
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
          },
    );
    return result;
  }

  #pendingCall(call: ModelToolCall): PendingCall {
    return {
      toolCallId: call.id,
      callId: createId(this.#env, "call"),
      toolName: call.name,
      arguments: call.arguments,
      status: "queued",
    };
  }

  async #stop(
    status: RunStopReason,
    error?: RunError,
    change: { appendMessages?: ModelMessage[]; set?: object } = {},
    requestIds: string[] = [],
  ): Promise<RunResult> {
    const state = this.#state;
    Object.assign(state, { status, error: error ?? null, requestIds });
    await this.#writer.commit({
      ...change,
      set: { ...change.set, status, error: state.error, requestIds, output: state.output },
    });
    const events = this.#env.events ?? NULL_EVENT_SINK;
    const { runId, turns, usage } = state;
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

function createId(env: AgentEnvironment, kind: "run" | "call"): string {
  return env.createId ? env.createId(kind) : `${kind}_${globalThis.crypto.randomUUID()}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
