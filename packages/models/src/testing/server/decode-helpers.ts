import { isRecord } from "@agent/base";
import type { ModelMessage, ModelRequest } from "../../model-client.js";

/** A request as the model saw it, decoded back from the wire: the shape {@link ScriptedModel.requests} records. */
export type DecodedModelRequest = Omit<ModelRequest, "signal" | "onText">;

/** A plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

/** An array of plain objects (other entries dropped), or empty. */
export function records(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry): Record<string, unknown>[] => {
    const record = asRecord(entry);
    return record === undefined ? [] : [record];
  });
}

/** A string, or the joined `text` of text parts/blocks; undefined when neither. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return undefined;
  const texts = records(value).flatMap((part) => (typeof part.text === "string" ? [part.text] : []));
  return texts.length > 0 ? texts.join("") : undefined;
}

/** Remembers tool names by call id, so a tool result can name the tool it answers. */
export function createToolNames(): { remember(id: string, name: string): void; of(id: string): string } {
  const names = new Map<string, string>();
  return {
    remember: (id, name) => void names.set(id, name),
    of: (id) => names.get(id) ?? "",
  };
}

/** Adds the optional fields of a decoded request only when present (exactOptionalPropertyTypes). */
export function decodedRequest(
  messages: ModelMessage[],
  tools: DecodedModelRequest["tools"],
  system: string | undefined,
  maxOutputTokens: unknown,
): DecodedModelRequest {
  return {
    ...(system === undefined ? {} : { system }),
    messages,
    tools,
    ...(typeof maxOutputTokens === "number" ? { maxOutputTokens } : {}),
  };
}
