export type { AdapterOptions } from "./adapter-options.js";
export { type AnthropicModelOptions, createAnthropicModel } from "./anthropic/anthropic-model.js";
export { MODEL_CLIENT_ERROR_CODES, ModelClientError, type ModelClientErrorCode } from "./errors.js";
export {
  MODEL_ERROR_CODES,
  type ModelClient,
  type ModelErrorCode,
  type ModelFailure,
  type ModelMessage,
  type ModelRequest,
  type ModelResult,
  type ModelStopReason,
  type ModelToolCall,
  type ModelToolDefinition,
  type ModelTurn,
  type ModelUsage,
} from "./model-client.js";
export { createOpenAiModel, type OpenAiModelOptions } from "./openai/openai-model.js";
