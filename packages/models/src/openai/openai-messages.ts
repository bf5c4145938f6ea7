/**
 * Translation between the provider-neutral turn and OpenAI Chat Completions: messages, function
 * tools (strict where the definition asks), finish reasons and usage.
 */
import type OpenAI from "openai";
import type {
  ModelMessage,
  ModelRequest,
  ModelStopReason,
  ModelToolCall,
  ModelToolDefinition,
  ModelUsage,
} from "../model-client.js";

type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ChatTool = OpenAI.Chat.Completions.ChatCompletionFunctionTool;

/** Builds the Chat Completions messages: the system prompt first, then the conversation. */
export function toChatMessages(request: Pick<ModelRequest, "system" | "messages">): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (request.system !== undefined && request.system !== "")
    messages.push({ role: "system", content: request.system });
  for (const message of request.messages) messages.push(toChatMessage(message));
  return messages;
}

function toChatMessage(message: ModelMessage): ChatMessage {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content };
    case "assistant":
      return message.toolCalls.length === 0
        ? { role: "assistant", content: message.content ?? "" }
        : {
            role: "assistant",
            content: message.content,
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments },
            })),
          };
    case "tool":
      // Chat Completions has no error flag on a tool message: the content (the loop's observation) says so.
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
  }
}

/** Builds the function tools; `strict: true` (with the strict parameters as given) only where asked. */
export function toChatTools(tools: readonly ModelToolDefinition[]): ChatTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      ...(tool.strict === true ? { strict: true } : {}),
    },
  }));
}

/** Maps a finish reason; `function_call` (legacy) and anything unknown are `other`. */
export function toStopReason(finishReason: string | null | undefined): ModelStopReason {
  switch (finishReason) {
    case "stop":
      return "end_turn";
    case "tool_calls":
      return "tool_use";
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    default:
      return "other";
  }
}

/** Reads token usage; servers that omit it count as 0. */
export function toUsage(usage: OpenAI.Completions.CompletionUsage | null | undefined): ModelUsage {
  return { inputTokens: usage?.prompt_tokens ?? 0, outputTokens: usage?.completion_tokens ?? 0 };
}

/** Reads the tool calls of a non-streamed message (custom tools are never offered, so they are skipped). */
export function toToolCalls(
  calls: readonly OpenAI.Chat.Completions.ChatCompletionMessageToolCall[] | undefined,
): ModelToolCall[] {
  const result: ModelToolCall[] = [];
  for (const call of calls ?? []) {
    if (call.type === "function") {
      result.push({ id: call.id, name: call.function.name, arguments: call.function.arguments });
    }
  }
  return result;
}

/** Assembles streamed tool call deltas by their index: the id and name arrive once, arguments in pieces. */
export class ToolCallAssembler {
  readonly #calls = new Map<number, { id: string; name: string; arguments: string }>();

  /** Adds one chunk's tool call deltas. */
  add(
    deltas: readonly OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall[] | undefined,
  ): void {
    for (const delta of deltas ?? []) {
      // Some compatible servers omit the index: a delta with an id starts a call, others continue the last.
      const index =
        typeof delta.index === "number"
          ? delta.index
          : delta.id
            ? this.#calls.size
            : Math.max(0, this.#calls.size - 1);
      const call = this.#calls.get(index) ?? { id: "", name: "", arguments: "" };
      if (delta.id) call.id = delta.id;
      // The name arrives whole (once, or repeated by some compatible servers), unlike the arguments.
      if (delta.function?.name) call.name = delta.function.name;
      if (delta.function?.arguments) call.arguments += delta.function.arguments;
      this.#calls.set(index, call);
    }
  }

  /** The calls, in index order. */
  calls(): ModelToolCall[] {
    // Some compatible servers send no ids; the transcript still needs one to pair each result with its call.
    return [...this.#calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, call]) => ({ ...call, id: call.id === "" ? `call_${index}` : call.id }));
  }
}
