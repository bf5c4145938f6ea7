import { messageOf } from "@agent/base";
import { MCP_ERROR_CODES, type McpRequestAnswer, type McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent } from "@agent/tools";
import {
  errorAnswer,
  type McpClientFeatures,
  type McpRoot,
  type SamplingMessage,
  type SamplingRequest,
} from "./client-features.js";
import { completeElicitationAnswer, looksSensitive, parseElicitationSchema } from "./elicitation-schema.js";
import type { ProtocolFeatures } from "./protocol-version.js";
import { describeValue, isRecord } from "./records.js";
import { since } from "./time.js";

/** What the handlers of one connection need to know. */
export interface ServerRequestContext {
  server: string;
  features: McpClientFeatures;
  events: EventSink;
  /** The roots offered now. */
  roots: () => readonly McpRoot[];
  /** What the negotiated version defines (until the handshake ends: the latest version's). */
  protocol: () => ProtocolFeatures;
}

/**
 * Answers the server's requests for the features the client offers (`roots/list`,
 * `elicitation/create`, `sampling/createMessage`); the others keep the transport's "method not
 * found". Returns the functions that remove the handlers.
 */
export function installServerRequestHandlers(
  transport: McpTransport,
  context: ServerRequestContext,
): (() => void)[] {
  if (!transport.onRequest) return [];
  const { features } = context;
  const removers: (() => void)[] = [];
  if (features.roots) {
    removers.push(
      transport.onRequest("roots/list", async () => ({
        ok: true,
        result: { roots: context.roots().map((root) => ({ ...root })) },
      })),
    );
  }
  if (features.elicitation) {
    removers.push(
      transport.onRequest("elicitation/create", (params, { signal }) =>
        answerElicitation(context, params, signal),
      ),
    );
  }
  if (features.sampling) {
    removers.push(
      transport.onRequest("sampling/createMessage", (params, { signal }) =>
        answerSampling(context, params, signal),
      ),
    );
  }
  return removers;
}

async function answerElicitation(
  context: ServerRequestContext,
  params: unknown,
  signal: AbortSignal,
): Promise<McpRequestAnswer> {
  const started = performance.now();
  const handler = context.features.elicitation;
  if (!handler || !context.protocol().elicitation) {
    return errorAnswer(MCP_ERROR_CODES.methodNotFound, "Method not found");
  }
  const audit = (
    action: "accept" | "decline" | "cancel" | "none",
    outcome: "answered" | "invalid_request" | "invalid_answer" | "failed",
    fields: string[] = [],
    sensitive = false,
  ): void =>
    emitEvent(context.events, {
      type: "mcp_elicitation",
      server: context.server,
      action,
      outcome,
      fields,
      sensitive,
      durationMs: since(started),
    });
  const invalid = (reason: string): McpRequestAnswer => {
    audit("none", "invalid_request");
    return errorAnswer(MCP_ERROR_CODES.invalidParams, `Invalid elicitation request: ${reason}`);
  };
  if (!isRecord(params)) return invalid("params must be an object");
  if (params.mode !== undefined && params.mode !== "form") {
    return invalid(`mode ${describeValue(params.mode)} is not supported; this client offers form mode only`);
  }
  if (typeof params.message !== "string") return invalid("message must be a string");
  const parsed = parseElicitationSchema(params.requestedSchema);
  if (!parsed.ok) return invalid(parsed.reason);
  const { fields } = parsed;
  const names = fields.map((field) => field.name);
  const sensitive = looksSensitive(params.message, fields);
  let answer: Awaited<ReturnType<typeof handler>>;
  try {
    answer = await handler(
      { server: context.server, message: params.message, fields, sensitive },
      { signal },
    );
  } catch {
    audit("cancel", "failed", names, sensitive);
    return { ok: true, result: { action: "cancel" } };
  }
  if (answer.action !== "accept") {
    audit(answer.action, "answered", names, sensitive);
    return { ok: true, result: { action: answer.action } };
  }
  const completed = completeElicitationAnswer(fields, answer.content);
  if (!completed.ok) {
    // Never send what the form did not ask for, or in a shape it did not ask for.
    audit("cancel", "invalid_answer", names, sensitive);
    return { ok: true, result: { action: "cancel" } };
  }
  audit("accept", "answered", names, sensitive);
  return { ok: true, result: { action: "accept", content: completed.content } };
}

async function answerSampling(
  context: ServerRequestContext,
  params: unknown,
  signal: AbortSignal,
): Promise<McpRequestAnswer> {
  const started = performance.now();
  const sampling = context.features.sampling;
  if (!sampling) return errorAnswer(MCP_ERROR_CODES.methodNotFound, "Method not found");
  const audit = (ok: boolean, code?: number, maxTokens?: number): void =>
    emitEvent(context.events, {
      type: "mcp_sampling",
      server: context.server,
      ok,
      ...(code === undefined ? {} : { code }),
      ...(maxTokens === undefined ? {} : { maxTokens }),
      durationMs: since(started),
    });
  const request = readSamplingRequest(context.server, params, sampling.maxTokens);
  if (typeof request === "string") {
    audit(false, MCP_ERROR_CODES.invalidParams);
    return errorAnswer(MCP_ERROR_CODES.invalidParams, `Invalid sampling request: ${request}`);
  }
  let answer: Awaited<ReturnType<typeof sampling.handler>>;
  try {
    answer = await sampling.handler(request, { signal });
  } catch (error) {
    answer = { ok: false, code: MCP_ERROR_CODES.internalError, message: messageOf(error) };
  }
  audit(answer.ok, answer.ok ? undefined : answer.code, request.maxTokens);
  if (!answer.ok) return errorAnswer(answer.code, answer.message);
  return {
    ok: true,
    result: {
      role: "assistant",
      content: { type: "text", text: answer.text },
      model: answer.model,
      ...(answer.stopReason === undefined ? {} : { stopReason: answer.stopReason }),
    },
  };
}

/** Checks a `sampling/createMessage` request: text messages only, no tools, `maxTokens` capped. */
function readSamplingRequest(server: string, params: unknown, cap: number): SamplingRequest | string {
  if (!isRecord(params)) return "params must be an object";
  if (!Array.isArray(params.messages) || params.messages.length === 0)
    return "messages must be a non-empty array";
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    return "tool use in sampling is not offered by this client";
  }
  const messages: SamplingMessage[] = [];
  for (const [index, message] of params.messages.entries()) {
    if (!isRecord(message) || (message.role !== "user" && message.role !== "assistant")) {
      return `messages[${index}] needs the role "user" or "assistant"`;
    }
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const texts: string[] = [];
    for (const block of blocks) {
      if (!isRecord(block) || block.type !== "text" || typeof block.text !== "string") {
        return `messages[${index}]: only text content is accepted`;
      }
      texts.push(block.text);
    }
    messages.push({ role: message.role, text: texts.join("\n") });
  }
  const { maxTokens } = params;
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) {
    return "maxTokens must be a positive integer";
  }
  if (params.systemPrompt !== undefined && typeof params.systemPrompt !== "string") {
    return "systemPrompt must be a string";
  }
  if (params.temperature !== undefined && typeof params.temperature !== "number") {
    return "temperature must be a number";
  }
  const stop = params.stopSequences;
  if (stop !== undefined && (!Array.isArray(stop) || !stop.every((item) => typeof item === "string"))) {
    return "stopSequences must be an array of strings";
  }
  return {
    server,
    messages,
    systemPrompt: params.systemPrompt as string | undefined,
    maxTokens: Math.min(maxTokens, cap),
    temperature: params.temperature as number | undefined,
    stopSequences: stop as string[] | undefined,
  };
}
