/**
 * The bounds of one model turn: how many calls it may make and how long each call's arguments may
 * be. A call past them is answered as its own observation (`too_many_calls`,
 * `arguments_too_large`) before anything runs: it never reaches the gate (so it makes no approval
 * request), and its arguments are not kept, in the transcript or the run's record, past their size.
 */
import type { ModelMessage, ModelToolCall } from "@agent/models";
import { OBSERVATION_ERROR_CODES } from "@agent/tools";
import type { PendingCall, ToolCallRecord } from "./run-state.js";
import { refuseCall, settleCall, type TurnCallsEnvironment } from "./turn-calls.js";

/** What one turn may hold, as the run was given it. */
export interface TurnLimits {
  maxCalls: number;
  maxArgumentChars: number;
}

// What a refused call's arguments become: valid JSON (a provider sends it back as the call's input).
const DROPPED_ARGUMENTS = "{}";

/**
 * Answers every call of `pending` past `limits` in place (`done`, with its refusal as result) and
 * drops its arguments from `assistant`'s calls too. Returns the refusals' records, or `undefined`
 * when the turn is within its limits (the usual turn: nothing is allocated).
 */
export function refuseOverLimits(
  pending: PendingCall[],
  assistant: Extract<ModelMessage, { role: "assistant" }>,
  limits: TurnLimits,
  env: TurnCallsEnvironment,
): ToolCallRecord[] | undefined {
  let records: ToolCallRecord[] | undefined;
  let calls: ModelToolCall[] | undefined;
  for (let index = 0; index < pending.length; index += 1) {
    const call = pending[index] as PendingCall;
    const refusal = refusalOf(index, call, limits);
    if (refusal === undefined) continue;
    const kept = { ...call, arguments: DROPPED_ARGUMENTS };
    const observation = refuseCall(kept, refusal.code, refusal.message, env);
    const settlement = settleCall(index, kept, observation, env);
    if (!settlement?.record) continue;
    pending[index] = settlement.pending;
    records ??= [];
    records.push(settlement.record);
    calls ??= assistant.toolCalls.slice();
    const original = calls[index];
    if (original) calls[index] = { ...original, arguments: DROPPED_ARGUMENTS };
  }
  if (calls) assistant.toolCalls = calls;
  return records;
}

function refusalOf(
  index: number,
  call: PendingCall,
  limits: TurnLimits,
): { code: "too_many_calls" | "arguments_too_large"; message: string } | undefined {
  if (index >= limits.maxCalls) {
    return {
      code: OBSERVATION_ERROR_CODES.tooManyCalls,
      message: `This turn made more than ${limits.maxCalls} tool calls, the most one turn may make; this one (call ${index + 1}) was not run. Make fewer calls per turn.`,
    };
  }
  if (call.arguments.length > limits.maxArgumentChars) {
    return {
      code: OBSERVATION_ERROR_CODES.argumentsTooLarge,
      message: `The arguments of this call are ${call.arguments.length} characters long, more than the ${limits.maxArgumentChars} one call may have; it was not run, and its arguments were not kept. Pass less at once (e.g. in parts).`,
    };
  }
  return undefined;
}
