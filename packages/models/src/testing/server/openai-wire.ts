/**
 * The OpenAI Chat Completions wire format as the fake model server speaks it: a `chat.completion`
 * body, or `chat.completion.chunk` SSE `data:` lines ending in `[DONE]`, with tool call arguments
 * split across chunks and a final usage chunk when `stream_options.include_usage` is set.
 */
import type { ModelStopReason, ModelTurn } from "../../model-client.js";
import { decodeOpenAiRequest } from "./openai-decode.js";
import { jsonEvent, type SseEvent, splitText, type WireContext, type WireFormat } from "./wire-format.js";

const FINISH_REASONS: Record<ModelStopReason, string> = Object.freeze({
  end_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
  other: "function_call",
});

const ERROR_TYPES: Record<number, string> = Object.freeze({
  400: "invalid_request_error",
  401: "invalid_request_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_exceeded",
});

function usage(turn: ModelTurn): Record<string, number> {
  const { inputTokens, outputTokens } = turn.usage;
  return {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
}

function chunk(context: WireContext, choices: unknown[], extra: Record<string, unknown> = {}): SseEvent {
  return jsonEvent({
    id: context.id,
    object: "chat.completion.chunk",
    created: 0,
    model: context.model,
    choices,
    ...extra,
  });
}

function delta(
  context: WireContext,
  body: Record<string, unknown>,
  finishReason: string | null = null,
): SseEvent {
  return chunk(context, [{ index: 0, delta: body, finish_reason: finishReason, logprobs: null }]);
}

function includesUsage(context: WireContext): boolean {
  const options = context.body.stream_options;
  return (
    typeof options === "object" &&
    options !== null &&
    (options as Record<string, unknown>).include_usage === true
  );
}

/** The Chat Completions wire format. */
export const openAiWire: WireFormat = Object.freeze<WireFormat>({
  json(turn, context) {
    return {
      id: context.id,
      object: "chat.completion",
      created: 0,
      model: context.model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: turn.text,
            refusal: null,
            ...(turn.toolCalls.length > 0
              ? {
                  tool_calls: turn.toolCalls.map((call) => ({
                    id: call.id,
                    type: "function",
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
          finish_reason: FINISH_REASONS[turn.stopReason],
          logprobs: null,
        },
      ],
      usage: usage(turn),
    };
  },

  stream(turn, context) {
    const events = [delta(context, { role: "assistant", content: "" })];
    if (turn.text !== null) {
      for (const piece of splitText(turn.text, context.chunkSize))
        events.push(delta(context, { content: piece }));
    }
    turn.toolCalls.forEach((call, index) => {
      events.push(
        delta(context, {
          tool_calls: [
            { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
          ],
        }),
      );
      for (const piece of splitText(call.arguments, context.chunkSize)) {
        events.push(delta(context, { tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    });
    events.push(delta(context, {}, FINISH_REASONS[turn.stopReason]));
    if (includesUsage(context)) events.push(chunk(context, [], { usage: usage(turn) }));
    events.push({ data: "[DONE]" });
    return events;
  },

  partialStream(text, context) {
    const events = [delta(context, { role: "assistant", content: "" })];
    if (text !== "") events.push(delta(context, { content: text }));
    return events;
  },

  decode: decodeOpenAiRequest,

  errorEvent(errorType, message) {
    return jsonEvent({ error: { message, type: errorType ?? "server_error", param: null, code: null } });
  },

  errorBody(status, message) {
    return { error: { message, type: ERROR_TYPES[status] ?? "server_error", param: null, code: null } };
  },
});
