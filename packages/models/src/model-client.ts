/**
 * The one seam between the agent loop and a model API. It is deliberately small: one turn in, one
 * turn out. Adapters (OpenAI Chat Completions, Anthropic Messages) translate it to a wire format;
 * the loop never sees a provider's types. This is public API: change it only on purpose, with a
 * changeset.
 */

/** A function the model may call, as plain data (no dependency on the tools package). */
export interface ModelToolDefinition {
  /** `^[a-zA-Z0-9_-]{1,64}$`, as model APIs require. */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  /** Ask the provider for strict (schema-constrained) arguments; `parameters` is then the strict variant. */
  strict?: boolean;
}

/** A tool call as the model made it. `arguments` is the raw text the model produced, parsed by the loop. */
export interface ModelToolCall {
  /** The provider's id for the call; tool results refer to it. */
  id: string;
  name: string;
  arguments: string;
}

/** One message of the conversation, provider-neutral. */
export type ModelMessage =
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; toolCalls: ModelToolCall[] }
  | {
      role: "tool";
      /** The {@link ModelToolCall.id} this answers. */
      toolCallId: string;
      toolName: string;
      /** What the model reads: the observation, serialized and capped by the loop. */
      content: string;
      isError: boolean;
    };

/** Why the model stopped producing output. */
export type ModelStopReason = "end_turn" | "tool_use" | "max_tokens" | "refusal" | "other";

/** Tokens the request cost, as the provider reported them (0 where it did not). */
export interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
}

/** One request for one assistant turn. */
export interface ModelRequest {
  system?: string;
  messages: readonly ModelMessage[];
  tools: readonly ModelToolDefinition[];
  /** Aborting it cancels the HTTP request; the result is then a `cancelled` failure. */
  signal: AbortSignal;
  /** Upper bound on output tokens for this turn. */
  maxOutputTokens?: number;
  /** Called with each piece of assistant text as it arrives (streaming); omit for a plain request. */
  onText?: (delta: string) => void;
}

/** Stable codes of {@link ModelFailure}. */
export const MODEL_ERROR_CODES = {
  /** 401/403: the key is missing, wrong or lacks access. Never retried. */
  authentication: "model_authentication",
  /** 429 after the SDK's own retries. */
  rateLimited: "model_rate_limited",
  /** 5xx or a broken connection after retries. */
  unavailable: "model_unavailable",
  /** Another 4xx: the request was refused (bad model name, context too long, ...). */
  badRequest: "model_bad_request",
  /** No answer within the configured time. */
  timeout: "model_timeout",
  /** The caller's signal aborted the request. */
  cancelled: "model_cancelled",
  /** The answer could not be understood (malformed body or stream). */
  invalidResponse: "model_invalid_response",
} as const;

/** A code of {@link MODEL_ERROR_CODES}. */
export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[keyof typeof MODEL_ERROR_CODES];

/** A request that produced no turn. Messages never contain an API key. */
export interface ModelFailure {
  ok: false;
  code: ModelErrorCode;
  message: string;
  /** The HTTP status, where there was one. */
  status?: number;
}

/** An assistant turn. */
export interface ModelTurn {
  ok: true;
  /** The assistant's text, or null when it only called tools. */
  text: string | null;
  toolCalls: ModelToolCall[];
  stopReason: ModelStopReason;
  usage: ModelUsage;
}

/** What one request ends with: a turn or a structured failure. It never throws for these. */
export type ModelResult = ModelTurn | ModelFailure;

/** A model API, one turn at a time. */
export interface ModelClient {
  /** e.g. `"openai"`, `"anthropic"`, `"scripted"`; for events. */
  readonly provider: string;
  /** The model's name as sent to the API. */
  readonly model: string;
  /** Asks for one assistant turn. Throws only on programmer misuse. */
  createTurn(request: ModelRequest): Promise<ModelResult>;
}
