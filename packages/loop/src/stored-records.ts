// How InMemoryRunStore keeps a run's two lists. A run keeps them for its whole life, so what the
// garbage collector copies on every scavenge is the number of objects they hold, more than their
// bytes. The usual turn (an assistant message with one tool call, and that call's successful record)
// is kept as two objects here, where its detached copies in the public form are six (a message, its
// list of calls with the list's storage and the call; a record and its observation). Anything else
// is kept as a detached copy in the public form. Loading expands and copies either, as JSON would.
import type { ModelMessage } from "@agent/models";
import type { JsonValue } from "@agent/tools";
import { copyJson } from "./json-copy.js";
import { copyCallRecord, copyMessage, usualSuccessOutput } from "./run-record-copy.js";
import type { ToolCallRecord } from "./run-state.js";

/** An assistant message that made exactly one tool call, as one object. */
class OneCallMessage {
  constructor(
    readonly content: string | null,
    readonly id: string,
    readonly name: string,
    readonly arguments_: string,
  ) {}
}

/** The record of a call whose observation is a usual success (see `usualSuccessOutput`), as one object. */
class SuccessRecord {
  constructor(
    readonly callId: string,
    readonly toolCallId: string,
    readonly toolName: string,
    readonly turn: number,
    readonly truncated: boolean,
    readonly chars: number,
    readonly bytes: number,
    readonly sha256: string | undefined,
    readonly observationType: string,
    readonly observationCallId: string,
    readonly observationToolName: string,
    readonly output: JsonValue,
  ) {}
}

/** A transcript message as the store keeps it. */
export type StoredMessage = ModelMessage | OneCallMessage;

/** A call record as the store keeps it. */
export type StoredCallRecord = ToolCallRecord | SuccessRecord;

/** What the store keeps of `message`: nothing shared with it. */
export function storeMessage(message: ModelMessage): StoredMessage {
  if (message.role === "assistant" && message.toolCalls.length === 1) {
    const call = message.toolCalls[0] as (typeof message.toolCalls)[number];
    return new OneCallMessage(message.content, call.id, call.name, call.arguments);
  }
  return copyMessage(message);
}

/** A detached copy of a kept message, in the public form, as a JSON round trip of it would give. */
export function loadMessage(stored: StoredMessage): ModelMessage {
  if (!(stored instanceof OneCallMessage)) return copyJson(stored);
  const toolCalls = [{ id: stored.id, name: stored.name, arguments: stored.arguments_ }];
  return copyJson<ModelMessage>({ role: "assistant", content: stored.content, toolCalls });
}

/** What the store keeps of `record`: nothing shared with it. */
export function storeCallRecord(record: ToolCallRecord): StoredCallRecord {
  const { observation } = record;
  const output = usualSuccessOutput(observation);
  if (output === undefined) return copyCallRecord(record);
  return new SuccessRecord(
    record.callId,
    record.toolCallId,
    record.toolName,
    record.turn,
    record.truncated,
    record.chars,
    record.bytes,
    record.sha256,
    observation.type,
    observation.callId,
    observation.toolName,
    output,
  );
}

/** A detached copy of a kept call record, in the public form, as a JSON round trip of it would give. */
export function loadCallRecord(stored: StoredCallRecord): ToolCallRecord {
  if (!(stored instanceof SuccessRecord)) return copyJson(stored);
  // Member for member as copyCallRecord makes them, so a record loads the same either way.
  const expanded = {
    callId: stored.callId,
    toolCallId: stored.toolCallId,
    toolName: stored.toolName,
    turn: stored.turn,
    observation: {
      type: stored.observationType,
      ok: true,
      callId: stored.observationCallId,
      toolName: stored.observationToolName,
      output: stored.output,
    },
    truncated: stored.truncated,
    chars: stored.chars,
    bytes: stored.bytes,
    ...(stored.sha256 === undefined ? {} : { sha256: stored.sha256 }),
  };
  return copyJson(expanded as ToolCallRecord);
}
