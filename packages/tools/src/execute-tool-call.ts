import { messageOf } from "@agent/base";
import { CallCancellation } from "./call-cancellation.js";
import { decisionEvent, finishedEvent, type StartFields, startFields } from "./call-records.js";
import type { JsonValue } from "./canonical-json.js";
import type { DeadlineQueue } from "./deadline-queue.js";
import { emitOwnedDecisionEvent, emitOwnedEvent } from "./emit-event.js";
import { type EventSink, NULL_EVENT_SINK } from "./event-sink.js";
import { copyFlowSource, type FlowSource } from "./flow.js";
import type { GateRequest, GateVerdict, ToolGate } from "./gate.js";
import {
  failureObservation,
  OBSERVATION_ERROR_CODES,
  type Observation,
  type ToolCallOutcome,
  type WaitingOutcome,
} from "./observation.js";
import { type CallIdentity, CallRecorder, runAdmitted } from "./running-call.js";
import type { PrepareResult, RegisteredTool, ToolProgress, ValidationIssue } from "./tool.js";

/** A call as the model or a user makes it. */
export interface ToolCall {
  name: string;
  input: unknown;
  /** Identifies the call in events and approvals; generated when absent. */
  callId?: string;
  /**
   * The untrusted sources this call's run had taken in when the model made it; overrides the
   * environment's `taint` (the loop sets it per call: a call is not tainted by its own result).
   */
  taint?: readonly FlowSource[] | undefined;
  /** Saves the call's checkpoint with its run (handed to the tool as `ToolContext.checkpoint`). */
  checkpoint?: (state: JsonValue) => Promise<void> | void;
  /**
   * Resumes a call that was admitted and started before its process stopped, from the checkpoint it
   * saved: the gate is not asked again (it decided, and an approval was consumed, back then), the
   * tool is told to continue (`ToolContext.resume`), and a tool that is not `resumable` is refused.
   * The trail opens with `tool_call_resumed` instead of a decision.
   */
  resume?: JsonValue;
}

/** Everything a call runs against. The gate is required: nothing executes without one. */
export interface ExecutionEnvironment {
  /**
   * Where calls find their tools. What a `ToolRegistry` also has, and a lookup may: `nextCallId`,
   * the id of a call without a `callId` (else `call_` and a `crypto.randomUUID()`), and `deadlines`,
   * the queue that holds the calls' time limits under one timer (else each call arms its own).
   */
  registry: {
    get(name: string): RegisteredTool | undefined;
    nextCallId?(): string;
    readonly deadlines?: DeadlineQueue;
  };
  gate: ToolGate;
  runId: string;
  cwd: string;
  /** How long execution may take before it is aborted and a `timeout` observation returned. */
  timeoutMs?: number;
  /** The caller's cancellation: aborting it returns `cancelled` at once. */
  signal?: AbortSignal;
  events?: EventSink;
  onProgress?: (progress: ToolProgress, call: { callId: string; toolName: string }) => void;
  /**
   * The untrusted sources the run has taken in, for every call made in this environment that does
   * not carry its own `ToolCall.taint` (the loop sets that one per call): handed to the gate and to
   * the tool. Absent or empty: a clean run.
   */
  taint?: readonly FlowSource[] | undefined;
}

export { DEFAULT_TOOL_TIMEOUT_MS } from "./running-call.js";

/**
 * Runs one call through the whole chain: lookup, validation, the gate (authorization, approvals,
 * sandbox), then execution under a timeout. It never throws for a call's outcome: every ending is an
 * observation or a waiting outcome, and every step is an event.
 */
export async function executeToolCall(call: ToolCall, env: ExecutionEnvironment): Promise<ToolCallOutcome> {
  const events = env.events ?? NULL_EVENT_SINK;
  const ids: CallIdentity = {
    runId: env.runId,
    callId: call.callId ?? newCallId(env.registry),
    toolName: call.name,
  };
  const started = performance.now();
  const tool = env.registry.get(call.name);
  // Without a sink, no event is built at all (the input is not even serialized for its size).
  const audited = events !== NULL_EVENT_SINK;
  // Two records a call (vocabulary version 2): what opens the call (tool_call_started in version 1)
  // goes into its first record, the decision or, for a call refused before one, the outcome.
  const start = audited ? startFields(tool, call.input) : undefined;
  let decided = false;
  let recorder: CallRecorder | undefined;
  // One async function for the whole call, its steps synchronous helpers: every async layer more
  // would cost a promise, a suspended frame and microtask turns per call.
  let outcome: ToolCallOutcome;
  const prepared = env.signal?.aborted || !tool ? undefined : tool.prepare(call.input);
  if (!tool || !prepared?.ok) outcome = unprepared(call, env, ids, prepared);
  else {
    // One cancellation per call: it reaches the gate (unless the caller has its own signal) and the tool.
    const cancellation = new CallCancellation();
    let verdict: GateVerdict;
    const resuming = call.resume !== undefined;
    if (resuming) verdict = resumedVerdict(tool);
    else {
      try {
        verdict = checkedVerdict(await askGate(tool, prepared.input, env, ids, cancellation, call));
      } catch (error) {
        // A gate that cannot decide (or answers with no verdict) fails closed.
        verdict = { type: "deny", reason: `gate_failed: ${messageOf(error)}` };
      }
    }
    // Written before anything it admits runs (and before a deny or a hold is returned); a sink may
    // write the decisions of concurrent calls in one go. A write that throws at once fails as one that rejects.
    let unrecorded: string | undefined;
    if (audited) {
      try {
        const written = emitOpening(events, ids, verdict, start, resuming);
        if (written) await written;
        // Unwritten, the decision leaves the outcome as the call's only record: it opens the trail.
        decided = true;
      } catch (error) {
        unrecorded = messageOf(error);
      }
    }
    if (verdict.type === "allow" && unrecorded === undefined && !env.signal?.aborted) {
      if (audited) recorder = new CallRecorder();
      outcome = await runAdmitted(verdict.run, prepared.execute, env, ids, cancellation, recorder, call);
    } else outcome = refusalOf(verdict, unrecorded, ids);
  }
  if (audited) {
    const finished = finishedEvent(ids, outcome, elapsed(started), recorder?.close());
    emitOwnedEvent(events, decided ? finished : Object.assign(finished, start));
  }
  return outcome;
}

// The steps below are synchronous helpers of executeToolCall: each value they keep to themselves is
// one register less in its async frame, which every call in flight holds while it waits.

function askGate(
  tool: RegisteredTool,
  input: unknown,
  env: ExecutionEnvironment,
  ids: CallIdentity,
  cancellation: CallCancellation,
  call: ToolCall,
): Promise<GateVerdict> {
  return env.gate.admit(new Admission(tool, input, env, ids, cancellation, call.taint ?? env.taint));
}

/** Emits what opens an admitted call's trail: its decision, or that it resumed; built for this emit alone. */
function emitOpening(
  events: EventSink,
  ids: CallIdentity,
  verdict: GateVerdict,
  start: StartFields | undefined,
  resuming: boolean,
): Promise<void> | undefined {
  const opening =
    resuming && verdict.type === "allow"
      ? Object.assign({ type: "tool_call_resumed" as const, ...ids }, start)
      : decisionEvent(ids, verdict, start);
  return emitOwnedDecisionEvent(events, opening);
}

function newCallId(registry: ExecutionEnvironment["registry"]): string {
  // Called on the registry: its nextCallId may rely on `this`.
  return registry.nextCallId ? registry.nextCallId() : `call_${globalThis.crypto.randomUUID()}`;
}

/** A resumed call runs as it was admitted, outside any runner: only a tool that can continue a call may. */
function resumedVerdict(tool: RegisteredTool): GateVerdict {
  if (!tool.resumable) return { type: "deny", reason: "not_resumable" };
  return { type: "allow", via: "policy", isolation: "none", run: (execute) => execute() };
}

/**
 * The gate's answer when it is a verdict the executor can act on; otherwise throws, which denies the
 * call: a gate written in JavaScript, or one that forgot a `return`, must neither make the call throw
 * nor be recorded as a decision it is not.
 */
function checkedVerdict(answer: unknown): GateVerdict {
  const verdict = answer as GateVerdict | null | undefined;
  if (!isActionable(verdict)) throw new TypeError("the gate's answer is not a verdict");
  return verdict as GateVerdict;
}

function isActionable(verdict: GateVerdict | null | undefined): boolean {
  switch (verdict?.type) {
    case "allow":
      return typeof verdict.run === "function";
    case "deny":
      return typeof verdict.reason === "string";
    case "waiting":
      return typeof verdict.requestId === "string";
    default:
      return false;
  }
}

/** The observation of a call that ends before the gate is asked: cancelled, unknown or invalid. */
function unprepared(
  call: ToolCall,
  env: ExecutionEnvironment,
  ids: CallIdentity,
  prepared: PrepareResult<unknown> | undefined,
): Observation {
  // Cancelled first: a caller that gave up (e.g. while a server was still connecting) gets
  // "cancelled", not a misleading "unknown_tool".
  if (env.signal?.aborted) return cancelledBeforeStart(ids);
  if (prepared?.ok === false) {
    return failureObservation(
      ids,
      OBSERVATION_ERROR_CODES.invalidArguments,
      invalidInputMessage(prepared.issues),
      { issues: prepared.issues },
    );
  }
  return failureObservation(
    ids,
    OBSERVATION_ERROR_CODES.unknownTool,
    `No tool named "${call.name}" is registered.`,
  );
}

/**
 * The outcome of a call the gate did not let run: denied, held, allowed but its decision not
 * recorded, or allowed and cancelled meanwhile.
 */
function refusalOf(verdict: GateVerdict, unrecorded: string | undefined, ids: CallIdentity): ToolCallOutcome {
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
    const waiting: WaitingOutcome = {
      type: "waiting",
      callId: ids.callId,
      toolName: ids.toolName,
      requestId: verdict.requestId,
      reason: "approval_required",
    };
    if (verdict.reason === "tainted_flow") waiting.heldBy = "tainted_flow";
    if (verdict.taint && verdict.taint.length > 0) waiting.taint = verdict.taint.map(copyFlowSource);
    return waiting;
  }
  // A call whose admission could not be recorded does not run: the gate fails closed.
  if (unrecorded !== undefined) {
    const reason = `audit_failed: ${unrecorded}`;
    return failureObservation(
      ids,
      OBSERVATION_ERROR_CODES.policyDenied,
      `The call was refused: its decision could not be recorded (${unrecorded}).`,
      { reason },
    );
  }
  return cancelledBeforeStart(ids);
}

function cancelledBeforeStart(ids: CallIdentity): Observation {
  return failureObservation(
    ids,
    OBSERVATION_ERROR_CODES.cancelled,
    "The call was cancelled before it started.",
  );
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
    ids: CallIdentity,
    cancellation: CallCancellation,
    readonly taint: readonly FlowSource[] | undefined,
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

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

/** Names the fields that failed (the first three, then how many more), so a one-line display says why. */
function invalidInputMessage(issues: readonly ValidationIssue[]): string {
  const shown = issues.slice(0, 3).map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
  const more = issues.length > 3 ? `; and ${issues.length - 3} more` : "";
  return `The input does not match the tool's schema: ${shown.join("; ")}${more}.`;
}

function fieldPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return "(input)";
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join("");
}
