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
