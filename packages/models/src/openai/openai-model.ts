/**
 * The OpenAI adapter: Chat Completions through the official `openai` SDK, against the hosted API or
 * any compatible server (`baseUrl`: Ollama, vLLM, llama.cpp, LM Studio). Streams when the request
 * has `onText`; retries, backoff and per-attempt timeouts are the SDK's own.
 */
import type OpenAI from "openai";
import { ABORTED, untilAborted } from "../abortable.js";
import { type AdapterOptions, resolveAdapterOptions, sharedSdkOptions } from "../adapter-options.js";
import { MODEL_ERROR_CODES, type ModelClient, type ModelRequest, type ModelResult } from "../model-client.js";
import { createSdkAdapter, type SdkCall } from "../sdk-adapter.js";
import { type FailureContext, failureFromSdkError, modelFailure, sdkErrorClasses } from "../sdk-failure.js";
import {
  ToolCallAssembler,
  toChatMessages,
  toChatTools,
  toStopReason,
  toToolCalls,
  toUsage,
} from "./openai-messages.js";

/** Options of {@link createOpenAiModel}. */
export type OpenAiModelOptions = AdapterOptions;

type CreateParams = Omit<OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, "stream">;

/** Creates a {@link ModelClient} for OpenAI Chat Completions or any OpenAI-compatible server. */
export function createOpenAiModel(options: OpenAiModelOptions): ModelClient {
  const resolved = resolveAdapterOptions("createOpenAiModel", options);
  const params = (request: ModelRequest): CreateParams => ({
    model: resolved.model,
    messages: toChatMessages(request),
    ...(request.tools.length > 0 ? { tools: toChatTools(request.tools) } : {}),
    ...(request.maxOutputTokens === undefined ? {} : { max_completion_tokens: request.maxOutputTokens }),
  });
  const baseUrl = (resolved.baseUrl ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  return createSdkAdapter<OpenAI>({
    provider: "openai",
    options: resolved,
    endpoint: `${baseUrl}/chat/completions`,
    load: async () => {
      const sdk = await import("openai");
      const client = new sdk.OpenAI({
        ...sharedSdkOptions(resolved),
        // Everything is explicit: the SDK would otherwise read OPENAI_BASE_URL, OPENAI_ORG_ID, ... silently.
        baseURL: baseUrl,
        organization: null,
        project: null,
        webhookSecret: null,
      });
      return { client, errors: sdkErrorClasses(sdk) };
    },
    plain: async ({ client, errors, request, context }) => {
      const completion = await untilAborted(
        client.chat.completions.create({ ...params(request), stream: false }, { signal: request.signal }),
        request.signal,
      );
      if (completion === ABORTED) return failureFromSdkError(request.signal.reason, errors, context);
      return fromCompletion(completion, context);
    },
    stream: (call, onText) => streamTurn(call, params(call.request), onText),
  });
}

function fromCompletion(
  completion: OpenAI.Chat.Completions.ChatCompletion,
  context: FailureContext,
): ModelResult {
  const choice = completion.choices?.[0];
  if (choice?.message === undefined) {
    return modelFailure(MODEL_ERROR_CODES.invalidResponse, "the answer has no choice", context);
  }
  const { message } = choice;
  return {
    ok: true,
    text: message.content ?? message.refusal ?? null,
    toolCalls: toToolCalls(message.tool_calls),
    stopReason: toStopReason(choice.finish_reason),
    usage: toUsage(completion.usage),
  };
}

async function streamTurn(
  { client, errors, request, context }: SdkCall<OpenAI>,
  params: CreateParams,
  onText: (delta: string) => void,
): Promise<ModelResult> {
  let text = "";
  let refusal = "";
  let finishReason: string | null = null;
  let usage: OpenAI.Completions.CompletionUsage | null | undefined;
  const toolCalls = new ToolCallAssembler();
  // The caller's callback may throw; that is its bug, rethrown as is once the stream is released.
  let callbackError: { error: unknown } | undefined;
  try {
    const stream = await untilAborted(
      client.chat.completions.create(
        { ...params, stream: true, stream_options: { include_usage: true } },
        { signal: request.signal },
      ),
      request.signal,
    );
    if (stream === ABORTED) return failureFromSdkError(request.signal.reason, errors, context);
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (choice === undefined) continue;
      const { delta } = choice;
      if (delta?.content) {
        text += delta.content;
        try {
          onText(delta.content);
        } catch (error) {
          callbackError = { error };
          break;
        }
      }
      if (delta?.refusal) refusal += delta.refusal;
      toolCalls.add(delta?.tool_calls);
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (error) {
    return failureFromSdkError(error, errors, context);
  }
  if (callbackError !== undefined) throw callbackError.error;
  // The SDK ends the iteration quietly when its signal aborts.
  if (request.signal.aborted) return failureFromSdkError(request.signal.reason, errors, context);
  if (finishReason === null) {
    return modelFailure(
      MODEL_ERROR_CODES.invalidResponse,
      "the answer stream ended before the model finished its turn (no finish_reason)",
      context,
    );
  }
  return {
    ok: true,
    text: text !== "" ? text : refusal !== "" ? refusal : null,
    toolCalls: toolCalls.calls(),
    stopReason: toStopReason(finishReason),
    usage: toUsage(usage),
  };
}
