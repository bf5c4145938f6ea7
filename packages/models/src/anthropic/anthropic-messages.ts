/**
 * Translation between the provider-neutral turn and the Anthropic Messages API: `tool_use` and
 * `tool_result` blocks (consecutive results merged into one user message, as the API requires),
 * tools with `input_schema`, stop reasons and usage.
 */

import { isRecord } from "@agent/base";
import type Anthropic from "@anthropic-ai/sdk";
import type {
  ModelMessage,
  ModelStopReason,
  ModelToolCall,
  ModelToolDefinition,
  ModelUsage,
} from "../model-client.js";

type MessageParam = Anthropic.Messages.MessageParam;
type ContentBlockParam = Anthropic.Messages.ContentBlockParam;
type ToolParam = Anthropic.Messages.Tool;

/**
 * Builds the Messages conversation. Tool results (and a user message right after them) join one
 * user message, results first; an assistant message with neither text nor calls is left out, since
 * the API refuses empty content.
 */
export function toAnthropicMessages(messages: readonly ModelMessage[]): MessageParam[] {
  const result: MessageParam[] = [];
  // The user message being built from tool results, open for more results or a following user text.
  let open: ContentBlockParam[] | undefined;
  for (const message of messages) {
    if (message.role === "tool") {
      const block: ContentBlockParam = {
        type: "tool_result",
        tool_use_id: message.toolCallId,
        content: message.content,
        ...(message.isError ? { is_error: true } : {}),
      };
      if (open === undefined) {
        open = [block];
        result.push({ role: "user", content: open });
      } else {
        open.push(block);
      }
      continue;
    }
    if (message.role === "user") {
      if (open !== undefined) open.push({ type: "text", text: message.content });
      else result.push({ role: "user", content: message.content });
      open = undefined;
      continue;
    }
    open = undefined;
    const content: ContentBlockParam[] = [];
    if (message.content !== null && message.content !== "")
      content.push({ type: "text", text: message.content });
    for (const call of message.toolCalls) {
      content.push({ type: "tool_use", id: call.id, name: call.name, input: toolInput(call.arguments) });
    }
    if (content.length > 0) result.push({ role: "assistant", content });
  }
  return result;
}

// The API carries tool input as an object. Arguments this adapter produced always are one; raw text
// from another provider's transcript that is not an object is sent as `{}` (its result, an
// `invalid_arguments` observation, tells the model what went wrong).
function toolInput(argumentsText: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(argumentsText);
    if (isRecord(value)) return value;
  } catch {
    // Falls through to the empty object.
  }
  return {};
}

/** Builds the tools; `strict: true` only where the definition asks for it. */
export function toAnthropicTools(tools: readonly ModelToolDefinition[]): ToolParam[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters as ToolParam["input_schema"],
    ...(tool.strict === true ? { strict: true } : {}),
  }));
}

/** Maps a stop reason; `stop_sequence`, `pause_turn` and anything unknown are `other`. */
export function toStopReason(stopReason: string | null | undefined): ModelStopReason {
  switch (stopReason) {
    case "end_turn":
      return "end_turn";
    case "tool_use":
      return "tool_use";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "refusal":
      return "refusal";
    default:
      return "other";
  }
}

/** Reads token usage; input counts cache reads and writes too, as they are input the request sent. */
export function toUsage(usage: Partial<Anthropic.Messages.Usage> | null | undefined): ModelUsage {
  return {
    inputTokens:
      (usage?.input_tokens ?? 0) +
      (usage?.cache_creation_input_tokens ?? 0) +
      (usage?.cache_read_input_tokens ?? 0),
    outputTokens: usage?.output_tokens ?? 0,
  };
}

/**
 * Reads the text (joined) and tool calls of an answer's content blocks. A tool call's arguments are
 * the raw JSON text streamed for its block (`rawInputs`, by block index) when there is one, else its
 * `input` serialized: the SDK's lenient parse of a stream cut short (at `max_tokens`) would turn
 * `{"path": "/etc` into `{}`, and the caller must see what the model really produced.
 */
export function fromContent(
  content: readonly Anthropic.Messages.ContentBlock[],
  rawInputs: ReadonlyMap<number, string> = new Map(),
): {
  text: string | null;
  toolCalls: ModelToolCall[];
} {
  const texts: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  content.forEach((block, index) => {
    if (block.type === "text") texts.push(block.text);
    else if (block.type === "tool_use") {
      const raw = rawInputs.get(index);
      toolCalls.push({
        id: block.id,
        name: block.name,
        arguments: raw !== undefined && raw !== "" ? raw : JSON.stringify(block.input ?? {}),
      });
    }
  });
  return { text: texts.length > 0 ? texts.join("") : null, toolCalls };
}
