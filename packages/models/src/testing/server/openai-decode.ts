/** Decodes a Chat Completions request body back into the provider-neutral request the adapter was given. */
import type { ModelMessage, ModelToolDefinition } from "../../model-client.js";
import {
  asRecord,
  createToolNames,
  type DecodedModelRequest,
  decodedRequest,
  records,
  textOf,
} from "./decode-helpers.js";

/** The neutral request of an OpenAI body; tool results decode with `isError: false` (the wire has no flag). */
export function decodeOpenAiRequest(body: Record<string, unknown>): DecodedModelRequest {
  const names = createToolNames();
  const messages: ModelMessage[] = [];
  const systems: string[] = [];
  for (const message of records(body.messages)) {
    const content = textOf(message.content);
    switch (message.role) {
      case "system":
      case "developer":
        if (content !== undefined) systems.push(content);
        break;
      case "user":
        messages.push({ role: "user", content: content ?? "" });
        break;
      case "assistant": {
        const toolCalls = records(message.tool_calls).map((call) => {
          const fn = asRecord(call.function) ?? {};
          const id = String(call.id ?? "");
          const name = String(fn.name ?? "");
          names.remember(id, name);
          return { id, name, arguments: String(fn.arguments ?? "") };
        });
        messages.push({ role: "assistant", content: content ?? null, toolCalls });
        break;
      }
      case "tool": {
        const toolCallId = String(message.tool_call_id ?? "");
        messages.push({
          role: "tool",
          toolCallId,
          toolName: names.of(toolCallId),
          content: content ?? "",
          isError: false,
        });
        break;
      }
    }
  }
  const tools = records(body.tools).flatMap((tool): ModelToolDefinition[] => {
    const fn = asRecord(tool.function);
    if (tool.type !== "function" || fn === undefined) return [];
    return [
      {
        name: String(fn.name ?? ""),
        description: String(fn.description ?? ""),
        parameters: asRecord(fn.parameters) ?? {},
        ...(fn.strict === true ? { strict: true } : {}),
      },
    ];
  });
  return decodedRequest(
    messages,
    tools,
    systems.length > 0 ? systems.join("\n") : undefined,
    body.max_completion_tokens ?? body.max_tokens,
  );
}
