import { messageOf } from "@agent/base";
import {
  capToolOutput,
  type EventSink,
  type ExecutionEnvironment,
  emitEvent,
  executeToolCall,
  type FailureDetails,
  type FlowSource,
  failureObservation,
  type JsonValue,
  NULL_EVENT_SINK,
  type Observation,
  type ObservationErrorCode,
  type ToolCall,
  type ToolCallOutcome,
  type ToolGate,
  type ToolProgress,
} from "@agent/tools";
import type { ToolSource } from "./offered-tools.js";
import type { PendingCall, ToolCallRecord } from "./run-state.js";

/** What the calls of one turn run against; built once per run, `turn` set before each turn's calls. */
export interface TurnCallsEnvironment {
  /** What each call's `executeToolCall` is given (registry, gate, run, cwd, signal, timeout, events). */
  execution: ExecutionEnvironment;
  runId: string;
  /** The model turn whose calls run now, from 1. */
  turn: number;
  /** The run's cancellation, if the caller has one (without it the executor saves a listener per call). */
  signal: AbortSignal | undefined;
  events: EventSink | undefined;
  /** What each result is capped with (`capToolOutput`'s options, made once per run). */
  cap: { maxChars: number };
  concurrency: number;
  filterObservation: ((observation: Observation) => Observation) | undefined;
  /** The untrusted sources the call at an index of the turn is judged with (`undefined`: clean). */
  taintOf: (index: number) => readonly FlowSource[] | undefined;
  /**
   * Ids of the calls handed to the executor whose settlement the run has not saved yet: if the run
   * cannot be saved, these may have run without their outcome kept. The run removes each once saved.
   */
  unsaved: Set<string>;
  /** Saves a running call's checkpoint with the run (see `PendingCall.checkpoint`); resolves once saved. */
  checkpoint?: (callId: string, state: JsonValue) => Promise<void> | undefined;
}

/** The executor's environment for a run's calls, with only the options that are set. */
export function executionEnvironment(options: {
  tools: ToolSource;
  gate: ToolGate;
  runId: string;
  cwd: string;
  timeoutMs: number | undefined;
  signal: AbortSignal | undefined;
  events: EventSink | undefined;
  onProgress: ((progress: ToolProgress, call: { callId: string; toolName: string }) => void) | undefined;
}): ExecutionEnvironment {
  return {
    registry: options.tools,
    gate: options.gate,
    runId: options.runId,
    cwd: options.cwd,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.events ? { events: options.events } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  };
}

/** What one call ended with: its new pending entry and, when done, its record. */
export interface CallSettlement {
  index: number;
  pending: PendingCall;
  record?: ToolCallRecord;
}

/** Hands a settled call to its run, which saves it before anything else happens. */
export type SettleCall = (settlement: CallSettlement, outcome: ToolCallOutcome) => Promise<void>;

/**
 * Runs every call of `pending` that is not done, at most `concurrency` at a time, each through
 * `executeToolCall` (the gate decides; a held call comes back `held`). Each settlement is handed to
 * `settle` as it happens, so the caller saves a finished call before anything else can be lost.
 * A call cut short by the run's own signal stays `queued`: it did not complete, so a resume runs it.
 */
export async function runTurnCalls(
  pending: readonly PendingCall[],
  env: TurnCallsEnvironment,
  settle: SettleCall,
): Promise<void> {
  const open = pending.flatMap((call, index) => (call.status === "done" ? [] : [index]));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < open.length && !env.signal?.aborted) {
      const index = open[next++] as number;
      const call = pending[index] as PendingCall;
      const outcome = await runCall(call, env, env.taintOf(index));
      const settlement = settleCall(index, call, outcome, env);
      if (settlement) await settle(settlement, outcome);
      // Interrupted by the run's signal: it did not complete, and runs again on resume.
      else env.unsaved.delete(call.callId);
    }
  };
  const workers = Array.from({ length: Math.min(env.concurrency, open.length) }, worker);
  await Promise.all(workers);
}

/** The index of the only call of `pending` still to run, if exactly one is: the usual turn. */
export function soleOpenCall(pending: readonly PendingCall[]): number | undefined {
  let open: number | undefined;
  for (let index = 0; index < pending.length; index += 1) {
    if (pending[index]?.status === "done") continue;
    if (open !== undefined) return undefined;
    open = index;
  }
  return open;
}

/**
 * Runs one call: its arguments parsed, then `executeToolCall` (unparsable arguments never reach it),
 * judged with `taint`, the untrusted sources its run had taken in.
 */
export function runCall(
  call: PendingCall,
  env: TurnCallsEnvironment,
  taint: readonly FlowSource[] | undefined,
): Promise<ToolCallOutcome> | ToolCallOutcome {
  let input: unknown;
  try {
    input = parseArguments(call.arguments);
  } catch (error) {
    return rejectUnparsable(call, messageOf(error), env);
  }
  env.unsaved.add(call.callId);
  // Built with the taint only when there is one: the common clean call allocates nothing more.
  const request: ToolCall =
    taint === undefined
      ? { name: call.toolName, input, callId: call.callId }
      : { name: call.toolName, input, callId: call.callId, taint };
  const { checkpoint } = env;
  if (checkpoint) request.checkpoint = (state) => checkpoint(call.callId, state);
  // Checkpointed by a process that stopped: continued from there, never started again. Only a call
  // that was admitted (queued) can have checkpointed; on any other a checkpoint is ignored, so it is
  // decided by the gate like any call.
  if (call.checkpoint !== undefined && call.status === "queued") request.resume = call.checkpoint;
  return executeToolCall(request, env.execution);
}

/**
 * What a call's outcome makes of it: `held`, or `done` with its capped result and full record;
 * `undefined` when the run's own signal cut it short (it runs again on resume).
 */
export function settleCall(
  index: number,
  call: PendingCall,
  outcome: ToolCallOutcome,
  env: TurnCallsEnvironment,
): CallSettlement | undefined {
  if (outcome.type === "waiting") {
    return { index, pending: { ...call, status: "held", requestId: outcome.requestId } };
  }
  // Interrupted by the run's own signal: not an answer, the call is run again on resume.
  if (!outcome.ok && outcome.error === "cancelled" && env.signal?.aborted) return undefined;
  const observation = env.filterObservation ? env.filterObservation(outcome) : outcome;
  const capped = capToolOutput(observation, env.cap);
  const record: ToolCallRecord = {
    callId: call.callId,
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    turn: env.turn,
    observation,
    truncated: capped.truncated,
    chars: capped.chars,
    bytes: capped.bytes,
  };
  if (capped.truncated) record.sha256 = capped.sha256;
  // Built field by field: the requestId of a call that was held is dropped, and no rest-copy is made.
  const done: PendingCall = {
    toolCallId: call.toolCallId,
    callId: call.callId,
    toolName: call.toolName,
    arguments: call.arguments,
    status: "done",
    result: { content: capped.text, isError: !observation.ok },
  };
  return { index, pending: done, record };
}

/** The call's arguments as a value; throws JSON.parse's SyntaxError for a text that is not JSON. */
function parseArguments(text: string): unknown {
  // Some models send an empty string for a call without arguments.
  return text.trim() === "" ? {} : JSON.parse(text);
}

/** Arguments that are not JSON never reach the executor, but the audit trail still shows the call. */
function rejectUnparsable(call: PendingCall, reason: string, env: TurnCallsEnvironment): Observation {
  return refuseCall(call, "invalid_arguments", `The arguments are not valid JSON: ${reason}`, env, {
    issues: [{ path: [], message: "Expected a JSON object of arguments." }],
  });
}

/**
 * The observation of a call the run answers itself, without the executor (nothing runs, no gate is
 * asked); the audit trail still shows the call start and finish with its code.
 */
export function refuseCall(
  call: PendingCall,
  code: ObservationErrorCode,
  message: string,
  env: TurnCallsEnvironment,
  details?: FailureDetails,
): Observation {
  const events = env.events ?? NULL_EVENT_SINK;
  const ids = { runId: env.runId, callId: call.callId, toolName: call.toolName };
  // One record, as for every call refused before a decision (event vocabulary version 2).
  const observation = failureObservation(ids, code, message, details);
  emitEvent(events, { type: "tool_call_finished", ...ids, ok: false, code, durationMs: 0 });
  return observation;
}
