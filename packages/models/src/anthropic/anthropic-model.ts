/**
 * The Anthropic adapter: the Messages API through the official `@anthropic-ai/sdk`. Streams with the
 * SDK's `messages.stream()` helper when the request has `onText`; retries, backoff and per-attempt
 * timeouts are the SDK's own.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { type AdapterOptions, resolveAdapterOptions, sharedSdkOptions } from "../adapter-options.js";
import { MODEL_CLIENT_ERROR_CODES, ModelClientError } from "../errors.js";
import { MODEL_ERROR_CODES, type ModelClient, type ModelRequest, type ModelResult } from "../model-client.js";
import { createSdkAdapter, type SdkCall } from "../sdk-adapter.js";
import { type FailureContext, failureFromSdkError, modelFailure, sdkErrorClasses } from "../sdk-failure.js";
import {
  fromContent,
  toAnthropicMessages,
  toAnthropicTools,
  toStopReason,
  toUsage,
} from "./anthropic-messages.js";

/** Options of {@link createAnthropicModel}. */
export interface AnthropicModelOptions extends AdapterOptions {
  /** `max_tokens` of each request (the API requires one) unless the request sets its own (default 4096). */
  maxOutputTokens?: number;
}

const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

type CreateParams = Anthropic.Messages.MessageCreateParamsNonStreaming;

/** Creates a {@link ModelClient} for the Anthropic Messages API. */
export function createAnthropicModel(options: AnthropicModelOptions): ModelClient {
  const resolved = resolveAdapterOptions("createAnthropicModel", options);
  const maxOutputTokens = options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  if (!Number.isSafeInteger(maxOutputTokens) || maxOutputTokens < 1) {
    throw new ModelClientError(
      MODEL_CLIENT_ERROR_CODES.invalidArgument,
      `createAnthropicModel: \`maxOutputTokens\` must be a positive integer, got ${String(options.maxOutputTokens)}`,
    );
  }
  const params = (request: ModelRequest): CreateParams => ({
    model: resolved.model,
    max_tokens: request.maxOutputTokens ?? maxOutputTokens,
    messages: toAnthropicMessages(request.messages),
    ...(request.system !== undefined && request.system !== "" ? { system: request.system } : {}),
    ...(request.tools.length > 0 ? { tools: toAnthropicTools(request.tools) } : {}),
  });
  // The SDK appends /v1/messages; a baseUrl written with /v1 (as the OpenAI-style ones are) means the same API.
  const baseUrl = (resolved.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "").replace(/\/v1$/, "");
  return createSdkAdapter<Anthropic>({
    provider: "anthropic",
    options: resolved,
    endpoint: `${baseUrl}/v1/messages`,
    load: async () => {
      const sdk = await import("@anthropic-ai/sdk");
      const client = new sdk.Anthropic({
        ...sharedSdkOptions(resolved),
        // Everything is explicit: the SDK would otherwise read ANTHROPIC_BASE_URL, profiles, ... silently.
        authToken: null,
        webhookKey: null,
        baseURL: baseUrl,
        // Traces could carry prompt text; the agent loop reports requests as its own events instead.
        openTelemetry: false,
      });
      return { client, errors: sdkErrorClasses(sdk) };
    },
    plain: async ({ client, request, context }) =>
      fromMessage(await client.messages.create(params(request), { signal: request.signal }), context),
    stream: (call, onText) => streamTurn(call, params(call.request), onText),
  });
}

function fromMessage(
  message: Anthropic.Messages.Message,
  context: FailureContext,
  rawInputs?: ReadonlyMap<number, string>,
): ModelResult {
  if (!Array.isArray(message?.content)) {
    return modelFailure(MODEL_ERROR_CODES.invalidResponse, "the answer has no content", context);
  }
  return {
    ok: true,
    ...fromContent(message.content, rawInputs),
    stopReason: toStopReason(message.stop_reason),
    usage: toUsage(message.usage),
  };
}

async function streamTurn(
  { client, errors, request, context }: SdkCall<Anthropic>,
  params: CreateParams,
  onText: (delta: string) => void,
): Promise<ModelResult> {
  // The caller's callback may throw; that is its bug, rethrown as is once the stream is released.
  let callbackError: { error: unknown } | undefined;
  const stream = client.messages.stream(params, { signal: request.signal });
  const rawInputs = new Map<number, string>();
  stream.on("streamEvent", (event) => {
    if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
      rawInputs.set(event.index, (rawInputs.get(event.index) ?? "") + event.delta.partial_json);
    }
  });
  stream.on("text", (delta) => {
    if (callbackError !== undefined) return;
    try {
      onText(delta);
    } catch (error) {
      callbackError = { error };
      stream.abort();
    }
  });
  try {
    const message = await stream.finalMessage();
    return fromMessage(message, context, rawInputs);
  } catch (error) {
    if (callbackError !== undefined) throw callbackError.error;
    return failureFromSdkError(error, errors, context);
  }
}
