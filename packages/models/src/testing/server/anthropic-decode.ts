/** Decodes a Messages request body back into the provider-neutral request the adapter was given. */
import type { ModelMessage, ModelToolCall, ModelToolDefinition } from "../../model-client.js";
import {
  asRecord,
  createToolNames,
  type DecodedModelRequest,
  decodedRequest,
  records,
  textOf,
} from "./decode-helpers.js";

/** The neutral request of an Anthropic body: a user message of tool results splits back into tool messages. */
export function decodeAnthropicRequest(body: Record<string, unknown>): DecodedModelRequest {
  const names = createToolNames();
  const messages: ModelMessage[] = [];
  for (const message of records(body.messages)) {
    if (typeof message.content === "string") {
      messages.push(
        message.role === "assistant"
          ? { role: "assistant", content: message.content, toolCalls: [] }
          : { role: "user", content: message.content },
      );
      continue;
    }
    const blocks = records(message.content);
    if (message.role === "assistant") {
      const toolCalls: ModelToolCall[] = blocks
        .filter((block) => block.type === "tool_use")
        .map((block) => {
          const id = String(block.id ?? "");
          const name = String(block.name ?? "");
          names.remember(id, name);
          return { id, name, arguments: JSON.stringify(block.input ?? {}) };
        });
      const text = textOf(blocks.filter((block) => block.type === "text"));
      messages.push({ role: "assistant", content: text ?? null, toolCalls });
      continue;
    }
    for (const block of blocks.filter((entry) => entry.type === "tool_result")) {
      const toolCallId = String(block.tool_use_id ?? "");
      messages.push({
        role: "tool",
        toolCallId,
        toolName: names.of(toolCallId),
        content: textOf(block.content) ?? "",
        isError: block.is_error === true,
      });
    }
    const text = textOf(blocks.filter((block) => block.type === "text"));
    if (text !== undefined) messages.push({ role: "user", content: text });
  }
  const tools = records(body.tools).map(
    (tool): ModelToolDefinition => ({
      name: String(tool.name ?? ""),
      description: String(tool.description ?? ""),
      parameters: asRecord(tool.input_schema) ?? {},
      ...(tool.strict === true ? { strict: true } : {}),
    }),
  );
  return decodedRequest(messages, tools, textOf(body.system), body.max_tokens);
}
