import { emitEvent, type FlowSource, mergeFlowSources } from "@agent/tools";
import { type AgentEnvironment, DEFAULT_MAX_TURNS, type RunResult } from "./agent-environment.js";
import { isCallRun } from "./call-run.js";
import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import { createRunId, RunDriver } from "./run-driver.js";
import { type PendingCall, RUN_STATE_FORMAT, type RunState, type ToolCallRecord } from "./run-state.js";
import { assertRunFormat } from "./run-store.js";
import { RunWriter } from "./run-writer.js";
import {
  applyUnknownOutcomeDecisions,
  markOutcomesUnknown,
  type UnknownOutcomeDecision,
} from "./unknown-outcomes.js";

/** What starts a run. */
export interface StartRunOptions {
  prompt: string;
  /** The run's system prompt. */
  system?: string;
  /** Model turns allowed; default {@link DEFAULT_MAX_TURNS}. Saved with the run. */
  maxTurns?: number;
  /**
   * The run's token budget: input plus output tokens of all its model turns, checked after each
   * turn. Past it the run stops `failed` with `token_budget_exceeded`. Saved with the run; none by default.
   */
  maxTokens?: number;
  runId?: string;
  /**
   * Untrusted content the prompt already holds (a resource of an untrusted server attached to it):
   * the run starts tainted by these, at turn 0.
   */
  taint?: readonly FlowSource[];
}

/** What resumes a run. */
export interface ResumeRunOptions {
  runId: string;
  /**
   * Whether a run marked `running` may be taken over (its process is gone). Without it such a run
   * is refused: nobody else can tell whether its owner still drives it.
   */
  canTakeOver?: (state: RunState) => boolean;
  /**
   * A new token budget for the rest of the run (e.g. raised after it stopped on the old one),
   * saved with it. The tokens already used still count: the saved totals go on.
   */
  maxTokens?: number;
  /**
   * The operator's decision, by call id, about each call whose outcome is unknown (`outcome_unknown`:
   * it may have run, but its result was not saved): `rerun` or `answer_unknown`. Such a call is never
   * run again without one; while any has none, the run stops `failed` with `call_outcome_unknown`. A
   * decision about any other call is refused (`invalid_options`).
   */
  unknownOutcomes?: Readonly<Record<string, UnknownOutcomeDecision>>;
}

/**
 * Starts a run: saves it, then drives it (model turn, each tool call through the gate, results back
 * to the model) until the model ends its turn or something stops it. Never throws for the run's own
 * outcome (a model failure, a held call, a Ctrl-C): that is its stop reason. Throws `LoopError` for
 * misuse, and whatever the store throws.
 */
export async function startRun(env: AgentEnvironment, options: StartRunOptions): Promise<RunResult> {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  assertPositiveInteger("maxTurns", maxTurns);
  assertTurnLimits(env);
  if (options.maxTokens !== undefined) assertPositiveInteger("maxTokens", options.maxTokens);
  const now = env.now ?? (() => new Date());
  const at = now().toISOString();
  const state: RunState = {
    format: RUN_STATE_FORMAT,
    runId: options.runId ?? createRunId(env),
    version: 1,
    status: "running",
    createdAt: at,
    updatedAt: at,
    provider: env.model.provider,
    model: env.model.model,
    system: options.system ?? null,
    cwd: env.cwd,
    maxTurns,
    maxTokens: options.maxTokens ?? null,
    turns: 0,
    usage: { inputTokens: 0, outputTokens: 0 },
    toolSetFingerprint: null,
    taint: mergeFlowSources([], options.taint ?? []).map((source) => ({ ...source, turn: 0 })),
    pending: [],
    requestIds: [],
    output: null,
    error: null,
    owner: env.owner ?? null,
    messages: [{ role: "user", content: options.prompt }],
    calls: [],
  };
  await env.store.createRun(state);
  if (env.events) {
    emitEvent(env.events, {
      type: "run_started",
      runId: state.runId,
      provider: state.provider,
      model: state.model,
      maxTurns,
    });
    for (const source of state.taint) {
      emitEvent(env.events, { type: "run_tainted", runId: state.runId, turn: 0, source: { ...source } });
    }
  }
  return new RunDriver(env, state, new RunWriter(env.store, state.runId, state.version, env.now)).drive();
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
  if (!state) throw new LoopError(LOOP_ERROR_CODES.runNotFound, `No run ${options.runId}.`);
  assertRunFormat(state);
  assertResumable(state, options);
  assertTurnLimits(env);
  if (options.maxTokens !== undefined) assertPositiveInteger("maxTokens", options.maxTokens);
  const now = env.now ?? (() => new Date());
  const { pending, records } = pendingOnResume(state, options);
  const claim = {
    status: "running" as const,
    owner: env.owner ?? null,
    error: null,
    requestIds: [],
    // A record of an older format is rewritten as this one: the fields it lacks are the budget and the taint.
    format: RUN_STATE_FORMAT,
    maxTokens: options.maxTokens ?? state.maxTokens ?? null,
    taint: state.taint ?? [],
    ...(pending === state.pending ? {} : { pending }),
  };
  const change = records.length > 0 ? { set: claim, appendCalls: records } : { set: claim };
  const version = await env.store.updateRun(state.runId, state.version, change, now());
  if (version === undefined) {
    throw new LoopError(
      LOOP_ERROR_CODES.runConflict,
      `Run ${state.runId} was claimed by another process just now; nothing was run here.`,
    );
  }
  Object.assign(state, claim, { version });
  state.calls.push(...records);
  const driver = new RunDriver(env, state, new RunWriter(env.store, state.runId, version, env.now));
  if (env.events) {
    emitEvent(env.events, {
      type: "run_resumed",
      runId: state.runId,
      turn: state.turns,
      toolSetChanged: state.toolSetFingerprint !== driver.offer().fingerprint,
    });
  }
  return driver.drive();
}

/**
 * The pending calls a resume starts from. A run taken over from a vanished process may have been
 * running any of its queued calls, and its record cannot tell one that never started from one whose
 * result died with it: they are marked `outcome_unknown`. Then the operator's decisions apply.
 */
function pendingOnResume(
  state: RunState,
  options: ResumeRunOptions,
): { pending: PendingCall[]; records: ToolCallRecord[] } {
  const pending =
    state.status === "running"
      ? // A checkpointed call is resumed from its checkpoint: it knows where it stood.
        markOutcomesUnknown(
          state.pending,
          (call) => call.status === "queued" && call.checkpoint === undefined,
        )
      : state.pending;
  if (options.unknownOutcomes === undefined) return { pending, records: [] };
  return applyUnknownOutcomeDecisions(state.runId, state.turns, pending, options.unknownOutcomes);
}

function assertResumable(state: RunState, options: ResumeRunOptions): void {
  if (isCallRun(state)) {
    throw new LoopError(
      LOOP_ERROR_CODES.runNotResumable,
      `Run ${state.runId} is a one-call run (no model drives it): its caller replays its call (claimCallRun, settleCallRun).`,
    );
  }
  if (state.status === "completed" || state.status === "max_turns") {
    throw new LoopError(
      LOOP_ERROR_CODES.runNotResumable,
      `Run ${state.runId} stopped for good (${state.status}); continue it with a new prompt, or start a new run.`,
    );
  }
  if (state.status === "running" && !options.canTakeOver?.(state)) {
    throw new LoopError(
      LOOP_ERROR_CODES.runNotResumable,
      `Run ${state.runId} is running in another process; resume it when that one stops.`,
    );
  }
}

/** Throws `invalid_options` for a turn limit of the environment that is not a positive integer. */
export function assertTurnLimits(env: AgentEnvironment): void {
  if (env.maxCallsPerTurn !== undefined) assertPositiveInteger("maxCallsPerTurn", env.maxCallsPerTurn);
  if (env.maxArgumentChars !== undefined) assertPositiveInteger("maxArgumentChars", env.maxArgumentChars);
}

/** Throws `invalid_options` unless `value` is a positive integer. */
export function assertPositiveInteger(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new LoopError(
      LOOP_ERROR_CODES.invalidOptions,
      `${name} must be a positive integer, got ${String(value)}.`,
    );
  }
}
