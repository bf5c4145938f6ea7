/**
 * The Anthropic Messages wire format as the fake model server speaks it: a `message` body, or the
 * SSE events `message_start`, `content_block_start` / `content_block_delta` (`text_delta`,
 * `input_json_delta`) / `content_block_stop`, `message_delta` (stop reason, usage), `message_stop`.
 */
import type { ModelStopReason } from "../../model-client.js";
import { decodeAnthropicRequest } from "./anthropic-decode.js";
import { jsonEvent, type SseEvent, splitText, type WireContext, type WireFormat } from "./wire-format.js";

const STOP_REASONS: Record<ModelStopReason, string> = Object.freeze({
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  refusal: "refusal",
  other: "pause_turn",
});

const ERROR_TYPES: Record<number, string> = Object.freeze({
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
});

/** Tool input as the Messages API carries it: an object. Scripted raw text that is no object is a script error. */
function toolInput(argumentsText: string, name: string): Record<string, unknown> {
  let input: unknown;
  try {
    input = JSON.parse(argumentsText);
  } catch {
    input = undefined;
  }
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new Error(
      `fake model server: the arguments of tool call "${name}" are not a JSON object, which the Anthropic Messages API cannot carry in a JSON answer (stream the request to send them raw)`,
    );
  }
  return input as Record<string, unknown>;
}

function messageStart(context: WireContext, inputTokens: number): SseEvent {
  return jsonEvent(
    {
      type: "message_start",
      message: {
        id: context.id,
        type: "message",
        role: "assistant",
        model: context.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 0 },
      },
    },
    "message_start",
  );
}

function blockStart(index: number, block: Record<string, unknown>): SseEvent {
  return jsonEvent({ type: "content_block_start", index, content_block: block }, "content_block_start");
}

function blockDelta(index: number, delta: Record<string, unknown>): SseEvent {
  return jsonEvent({ type: "content_block_delta", index, delta }, "content_block_delta");
}

function blockStop(index: number): SseEvent {
  return jsonEvent({ type: "content_block_stop", index }, "content_block_stop");
}

/** The Messages wire format. */
export const anthropicWire: WireFormat = Object.freeze<WireFormat>({
  json(turn, context) {
    const content: unknown[] = [];
    if (turn.text !== null) content.push({ type: "text", text: turn.text });
    for (const call of turn.toolCalls) {
      content.push({
        type: "tool_use",
        id: call.id,
        name: call.name,
        input: toolInput(call.arguments, call.name),
      });
    }
    return {
      id: context.id,
      type: "message",
      role: "assistant",
      model: context.model,
      content,
      stop_reason: STOP_REASONS[turn.stopReason],
      stop_sequence: null,
      usage: { input_tokens: turn.usage.inputTokens, output_tokens: turn.usage.outputTokens },
    };
  },

  stream(turn, context) {
    const events = [messageStart(context, turn.usage.inputTokens)];
    let index = 0;
    if (turn.text !== null) {
      events.push(blockStart(index, { type: "text", text: "" }));
      for (const piece of splitText(turn.text, context.chunkSize)) {
        events.push(blockDelta(index, { type: "text_delta", text: piece }));
      }
      events.push(blockStop(index));
      index += 1;
    }
    for (const call of turn.toolCalls) {
      events.push(blockStart(index, { type: "tool_use", id: call.id, name: call.name, input: {} }));
      for (const piece of splitText(call.arguments, context.chunkSize)) {
        events.push(blockDelta(index, { type: "input_json_delta", partial_json: piece }));
      }
      events.push(blockStop(index));
      index += 1;
    }
    events.push(
      jsonEvent(
        {
          type: "message_delta",
          delta: { stop_reason: STOP_REASONS[turn.stopReason], stop_sequence: null },
          usage: { output_tokens: turn.usage.outputTokens },
        },
        "message_delta",
      ),
      jsonEvent({ type: "message_stop" }, "message_stop"),
    );
    return events;
  },

  partialStream(text, context) {
    const events = [messageStart(context, 0), blockStart(0, { type: "text", text: "" })];
    if (text !== "") events.push(blockDelta(0, { type: "text_delta", text }));
    return events;
  },

  decode: decodeAnthropicRequest,

  errorEvent(errorType, message) {
    return jsonEvent({ type: "error", error: { type: errorType ?? "overloaded_error", message } }, "error");
  },

  errorBody(status, message) {
    return { type: "error", error: { type: ERROR_TYPES[status] ?? "api_error", message } };
  },
});
