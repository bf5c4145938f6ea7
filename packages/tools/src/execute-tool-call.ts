import { CallCancellation } from "./call-cancellation.js";
import { messageOf } from "./error-message.js";
import {
  type AgentEventInput,
  type EventSink,
  emitDecisionEvent,
  emitEvent,
  NULL_EVENT_SINK,
} from "./events.js";
import type { GateRequest, GateVerdict, ToolGate } from "./gate.js";
import {
  type FailureDetails,
  failureObservation,
  isToolFailure,
  OBSERVATION_ERROR_CODES,
  type Observation,
  type ObservationErrorCode,
  type ToolCallOutcome,
} from "./observation.js";
import type { RegisteredTool, ToolContext, ToolProgress } from "./tool.js";

/** A call as the model or a user makes it. */
export interface ToolCall {
  name: string;
  input: unknown;
  /** Identifies the call in events and approvals; generated when absent. */
  callId?: string;
}

/** Everything a call runs against. The gate is required: nothing executes without one. */
export interface ExecutionEnvironment {
  registry: { get(name: string): RegisteredTool | undefined };
  gate: ToolGate;
  runId: string;
  cwd: string;
  /** How long execution may take before it is aborted and a `timeout` observation returned. */
  timeoutMs?: number;
  /** The caller's cancellation: aborting it returns `cancelled` at once. */
  signal?: AbortSignal;
  events?: EventSink;
  onProgress?: (progress: ToolProgress, call: { callId: string; toolName: string }) => void;
}

// The longest delay setTimeout honours.
const MAX_TIMER_MS = 2_147_483_647;

/** Used when the environment sets no timeout. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * Runs one call through the whole chain: lookup, validation, the gate (authorization, approvals,
 * sandbox), then execution under a timeout. It never throws for a call's outcome: every ending is an
 * observation or a waiting outcome, and every step is an event.
 */
export async function executeToolCall(call: ToolCall, env: ExecutionEnvironment): Promise<ToolCallOutcome> {
  const events = env.events ?? NULL_EVENT_SINK;
  const ids: CallIds = {
    runId: env.runId,
    callId: call.callId ?? `call_${globalThis.crypto.randomUUID()}`,
    toolName: call.name,
  };
  const started = performance.now();
  const tool = env.registry.get(call.name);
  // Without a sink, no event is built at all (the input is not even serialized for its size).
  const audited = events !== NULL_EVENT_SINK;
  if (audited) emitEvent(events, startedEvent(ids, tool, call.input));
  const outcome = await decideAndRun(call, tool, env, ids, events);
  if (audited) emitEvent(events, finishedEvent(ids, outcome, elapsed(started)));
  return outcome;
}

type CallIds = { runId: string; callId: string; toolName: string };

async function decideAndRun(
  call: ToolCall,
  tool: RegisteredTool | undefined,
  env: ExecutionEnvironment,
  ids: CallIds,
  events: EventSink,
): Promise<ToolCallOutcome> {
  // Cancelled first: a caller that gave up (e.g. while a server was still connecting) gets
  // "cancelled", not a misleading "unknown_tool".
  if (env.signal?.aborted)
    return failureObservation(
      ids,
      OBSERVATION_ERROR_CODES.cancelled,
      "The call was cancelled before it started.",
    );
  if (!tool)
    return failureObservation(
      ids,
      OBSERVATION_ERROR_CODES.unknownTool,
      `No tool named "${call.name}" is registered.`,
    );

  const prepared = tool.prepare(call.input);
  if (!prepared.ok) {
    return failureObservation(
      ids,
      OBSERVATION_ERROR_CODES.invalidArguments,
      "The input does not match the tool's schema.",
      {
        issues: prepared.issues,
      },
    );
  }

  // One cancellation per call: it reaches the gate (unless the caller has its own signal) and the tool.
  const cancellation = new CallCancellation();
  const verdict = await admit(new Admission(tool, prepared.input, env, ids, cancellation), env.gate);
  // Written before anything it admits runs (and before a deny or a hold is returned); a sink may
  // write the decisions of concurrent calls in one go.
  if (events !== NULL_EVENT_SINK) {
    const unrecorded = await recordDecision(events, ids, verdict);
    // A call whose admission could not be recorded does not run: the gate fails closed.
    if (unrecorded && verdict.type === "allow") {
      const reason = `audit_failed: ${unrecorded}`;
      return failureObservation(
        ids,
        OBSERVATION_ERROR_CODES.policyDenied,
        `The call was refused: its decision could not be recorded (${unrecorded}).`,
        { reason },
      );
    }
  }
  if (verdict.type === "deny") {
    return failureObservation(
      ids,
      OBSERVATION_ERROR_CODES.policyDenied,
      `The policy denied this call: ${verdict.reason}`,
      {
        reason: verdict.reason,
      },
    );
  }
  if (verdict.type === "waiting") {
    return {
      type: "waiting",
      callId: ids.callId,
      toolName: ids.toolName,
      requestId: verdict.requestId,
      reason: "approval_required",
    };
  }
  if (env.signal?.aborted)
    return failureObservation(
      ids,
      OBSERVATION_ERROR_CODES.cancelled,
      "The call was cancelled before it started.",
    );
  return runAdmitted(verdict.run, prepared.execute, env, ids, cancellation);
}

/** Emits the decision and waits until it is written; the reason it could not be, if a sink says so. */
async function recordDecision(
  events: EventSink,
  ids: CallIds,
  verdict: GateVerdict,
): Promise<string | undefined> {
  const written = emitDecisionEvent(events, decisionEvent(ids, verdict));
  if (!written) return undefined;
  try {
    await written;
    return undefined;
  } catch (error) {
    return messageOf(error);
  }
}

/**
 * What the gate is asked, with the call's signal created only if the gate reads it (the policy gate
 * does not): the caller's own signal when it gave one, else the call's.
 */
class Admission implements GateRequest {
  readonly runId: string;
  readonly callId: string;
  readonly cwd: string;
  readonly #env: ExecutionEnvironment;
  readonly #cancellation: CallCancellation;

  constructor(
    readonly tool: RegisteredTool,
    readonly input: unknown,
    env: ExecutionEnvironment,
    ids: CallIds,
    cancellation: CallCancellation,
  ) {
    this.runId = ids.runId;
    this.callId = ids.callId;
    this.cwd = env.cwd;
    this.#env = env;
    this.#cancellation = cancellation;
  }

  get signal(): AbortSignal {
    return this.#env.signal ?? this.#cancellation.signal;
  }
}

async function admit(request: Admission, gate: ToolGate): Promise<GateVerdict> {
  try {
    return await gate.admit(request);
  } catch (error) {
    // A gate that cannot decide fails closed.
    return { type: "deny", reason: `gate_failed: ${messageOf(error)}` };
  }
}

/** What a running tool receives; its `signal` is the call's cancellation, created on first read. */
class RunningCallContext implements ToolContext {
  readonly callId: string;
  readonly runId: string;
  readonly cwd: string;
  readonly progressListened: boolean;
  readonly cancellation: CallCancellation;
  readonly #env: ExecutionEnvironment;
  readonly #toolName: string;

  constructor(env: ExecutionEnvironment, ids: CallIds, cancellation: CallCancellation) {
    this.callId = ids.callId;
    this.runId = ids.runId;
    this.cwd = env.cwd;
    this.progressListened = env.onProgress !== undefined;
    this.cancellation = cancellation;
    this.#env = env;
    this.#toolName = ids.toolName;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  /** An arrow, so that a tool may pass it on detached. */
  readonly reportProgress = (progress: ToolProgress): void => {
    if (!this.cancellation.aborted) {
      this.#env.onProgress?.(progress, { callId: this.callId, toolName: this.#toolName });
    }
  };
}

function runAdmitted(
  run: (execute: () => Promise<unknown>) => Promise<unknown>,
  execute: (context: ToolContext) => Promise<unknown>,
  env: ExecutionEnvironment,
  ids: CallIds,
  cancellation: CallCancellation,
): Promise<Observation> {
  // setTimeout fires at once for delays past 2^31-1 ms (or Infinity): treat those as the longest wait.
  const timeoutMs = Math.min(env.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, MAX_TIMER_MS);
  const callerSignal = env.signal;
  // One promise settled by whichever comes first: the tool's end, the timeout or the caller's abort.
  return new Promise<Observation>((resolve) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (observation: Observation): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callerSignal?.removeEventListener("abort", onCallerAbort);
      resolve(observation);
    };
    const stop = (error: ObservationErrorCode, message: string): void => {
      if (settled) return;
      finish(failureObservation(ids, error, message));
      // Returned at once, even if the tool ignores its signal.
      cancellation.abort(new Error(message));
    };
    const onCallerAbort = (): void => stop(OBSERVATION_ERROR_CODES.cancelled, "The call was cancelled.");
    timer = setTimeout(
      () => stop(OBSERVATION_ERROR_CODES.timeout, `The tool did not finish within ${timeoutMs} ms.`),
      timeoutMs,
    );
    callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
    const context = new RunningCallContext(env, ids, cancellation);
    // A turn later, never inside the gate's stack frame; a tool that throws at once is a tool_error too.
    // The runner's own promise is listened to (no promise in between to adopt it: two microtask turns).
    queueMicrotask(() => {
      let running: Promise<unknown>;
      try {
        running = Promise.resolve(run(() => execute(context)));
      } catch (error) {
        running = Promise.reject(error);
      }
      running.then(
        (value) => finish(toObservation(ids, value)),
        (error: unknown) =>
          finish(
            failureObservation(
              ids,
              OBSERVATION_ERROR_CODES.toolError,
              `The tool failed: ${messageOf(error)}`,
            ),
          ),
      );
    });
  });
}

function toObservation(ids: CallIds, value: unknown): Observation {
  if (isToolFailure(value)) {
    const { error, message, ...details } = value;
    return failureObservation(ids, error, message, details as FailureDetails);
  }
  return { type: "observation", ok: true, callId: ids.callId, toolName: ids.toolName, output: value };
}

// The events below are built field by field, in the order the audit trail has always had: V8's
// object spread is slow for these shapes (see emitEvent), and a call emits three of them.

function startedEvent(ids: CallIds, tool: RegisteredTool | undefined, input: unknown): AgentEventInput {
  const event: AgentEventInput & { type: "tool_call_started" } = {
    type: "tool_call_started",
    runId: ids.runId,
    callId: ids.callId,
    toolName: ids.toolName,
  };
  if (tool) event.effect = tool.effect;
  try {
    const text = JSON.stringify(input);
    if (text !== undefined) event.inputBytes = Buffer.byteLength(text);
  } catch {
    // An input that cannot be serialized is reported by validation, not here.
  }
  return event;
}

function decisionEvent(ids: CallIds, verdict: GateVerdict): AgentEventInput {
  const { runId, callId, toolName } = ids;
  switch (verdict.type) {
    case "allow":
      return {
        type: "tool_call_decided",
        runId,
        callId,
        toolName,
        decision: "allow",
        via: verdict.via,
        isolation: verdict.isolation,
      };
    case "deny":
      return { type: "tool_call_decided", runId, callId, toolName, decision: "deny", reason: verdict.reason };
    case "waiting":
      return {
        type: "tool_call_decided",
        runId,
        callId,
        toolName,
        decision: "ask",
        requestId: verdict.requestId,
      };
  }
}

function finishedEvent(ids: CallIds, outcome: ToolCallOutcome, durationMs: number): AgentEventInput {
  const { runId, callId, toolName } = ids;
  if (outcome.type === "waiting") {
    return { type: "tool_call_finished", runId, callId, toolName, ok: false, code: "waiting", durationMs };
  }
  if (outcome.ok) return { type: "tool_call_finished", runId, callId, toolName, ok: true, durationMs };
  return { type: "tool_call_finished", runId, callId, toolName, ok: false, code: outcome.error, durationMs };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
