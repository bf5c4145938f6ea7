/**
 * A turn's pending calls: made from the model's tool calls (each given its call id), and, once
 * every one is answered, turned into the transcript's tool messages, in the model's order.
 */
import type { ModelMessage, ModelToolCall } from "@agent/models";
import type { CallIds } from "@agent/tools";
import type { AgentEnvironment } from "./agent-environment.js";
import type { PendingCall } from "./run-state.js";

/** The model's `calls`, queued, with ids from the environment's `createId` or else from `callIds`. */
export function pendingCallsOf(
  calls: readonly ModelToolCall[],
  env: Pick<AgentEnvironment, "createId">,
  callIds: CallIds,
): PendingCall[] {
  const pending = new Array<PendingCall>(calls.length);
  for (let index = 0; index < calls.length; index += 1) {
    const call = calls[index] as ModelToolCall;
    pending[index] = {
      toolCallId: call.id,
      // Called on the environment, as every id it makes: a createId may rely on `this`.
      callId: env.createId ? env.createId("call") : callIds.next(),
      toolName: call.name,
      arguments: call.arguments,
      status: "queued",
    };
  }
  return pending;
}

/** Whether every call of the turn is answered. */
export function allAnswered(pending: readonly PendingCall[]): boolean {
  for (const call of pending) if (call.status !== "done") return false;
  return true;
}

/** The answered calls' results as tool messages, in call order, each also appended to `transcript`. */
export function appendToolMessages(
  pending: readonly PendingCall[],
  transcript: ModelMessage[],
): ModelMessage[] {
  const results = new Array<ModelMessage>(pending.length);
  for (let index = 0; index < pending.length; index += 1) {
    const result = toolMessage(pending[index] as PendingCall);
    results[index] = result;
    transcript.push(result);
  }
  return results;
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
