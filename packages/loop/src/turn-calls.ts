import {
  capToolOutput,
  type EventSink,
  emitEvent,
  executeToolCall,
  failureObservation,
  NULL_EVENT_SINK,
  type Observation,
  type ToolCallOutcome,
  type ToolGate,
  type ToolProgress,
} from "@agent/tools";
import type { ToolSource } from "./offered-tools.js";
import type { PendingCall, ToolCallRecord } from "./run-state.js";

/** What the calls of one turn run against. */
export interface TurnCallsEnvironment {
  tools: ToolSource;
  gate: ToolGate;
  runId: string;
  cwd: string;
  turn: number;
  timeoutMs: number | undefined;
  /** The run's cancellation, if the caller has one (without it the executor saves a listener per call). */
  signal: AbortSignal | undefined;
  events: EventSink | undefined;
  maxChars: number;
  concurrency: number;
  onProgress: ((progress: ToolProgress, call: { callId: string; toolName: string }) => void) | undefined;
  onCall: ((call: PendingCall, outcome: ToolCallOutcome) => void) | undefined;
  filterObservation: ((observation: Observation) => Observation) | undefined;
}

/** What one call ended with: its new pending entry and, when done, its record. */
export interface CallSettlement {
  index: number;
  pending: PendingCall;
  record?: ToolCallRecord;
}

/**
 * Runs every call of `pending` that is not done, at most `concurrency` at a time, each through
 * `executeToolCall` (the gate decides; a held call comes back `held`). Each settlement is handed to
 * `settle` as it happens, so the caller saves a finished call before anything else can be lost.
 * A call cut short by the run's own signal stays `queued`: it did not complete, so a resume runs it.
 */
export async function runTurnCalls(
  pending: readonly PendingCall[],
  env: TurnCallsEnvironment,
  settle: (settlement: CallSettlement) => Promise<void>,
): Promise<void> {
  const open = pending.flatMap((call, index) => (call.status === "done" ? [] : [index]));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < open.length && !env.signal?.aborted) {
      const index = open[next++] as number;
      const call = pending[index] as PendingCall;
      const outcome = await runCall(call, env);
      const settlement = settleCall(index, call, outcome, env);
      if (settlement) {
        env.onCall?.(settlement.pending, outcome);
        await settle(settlement);
      }
    }
  };
  const workers = Array.from({ length: Math.min(env.concurrency, open.length) }, worker);
  await Promise.all(workers);
}

function runCall(call: PendingCall, env: TurnCallsEnvironment): Promise<ToolCallOutcome> | ToolCallOutcome {
  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) return rejectUnparsable(call, parsed.message, env);
  return executeToolCall(
    { name: call.toolName, input: parsed.value, callId: call.callId },
    {
      registry: env.tools,
      gate: env.gate,
      runId: env.runId,
      cwd: env.cwd,
      ...(env.signal ? { signal: env.signal } : {}),
      ...(env.timeoutMs === undefined ? {} : { timeoutMs: env.timeoutMs }),
      ...(env.events ? { events: env.events } : {}),
      ...(env.onProgress ? { onProgress: env.onProgress } : {}),
    },
  );
}

function settleCall(
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
  const capped = capToolOutput(observation, { maxChars: env.maxChars });
  const { requestId: _requestId, ...rest } = call;
  return {
    index,
    pending: { ...rest, status: "done", result: { content: capped.text, isError: !observation.ok } },
    record: {
      callId: call.callId,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      turn: env.turn,
      observation,
      truncated: capped.truncated,
      chars: capped.chars,
      bytes: capped.bytes,
      sha256: capped.sha256,
    },
  };
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

function parseArguments(text: string): Parsed {
  // Some models send an empty string for a call without arguments.
  if (text.trim() === "") return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Arguments that are not JSON never reach the executor, but the audit trail still shows the call. */
function rejectUnparsable(call: PendingCall, reason: string, env: TurnCallsEnvironment): Observation {
  const events = env.events ?? NULL_EVENT_SINK;
  const ids = { runId: env.runId, callId: call.callId, toolName: call.toolName };
  emitEvent(events, { type: "tool_call_started", ...ids });
  const observation = failureObservation(
    ids,
    "invalid_arguments",
    `The arguments are not valid JSON: ${reason}`,
    {
      issues: [{ path: [], message: "Expected a JSON object of arguments." }],
    },
  );
  emitEvent(events, {
    type: "tool_call_finished",
    ...ids,
    ok: false,
    code: "invalid_arguments",
    durationMs: 0,
  });
  return observation;
}
