export { CLOSE_MARGIN_MS, closeBoundAround } from "./close-deadline.js";
export { INPUT_REQUIRED_LIMITS } from "./era/input-required.js";
export {
  type EraAware,
  type NegotiateEraOptions,
  negotiateEra,
  type ProtocolEra,
} from "./era/negotiate-era.js";
export {
  isValidTaskId,
  MCP_TASK_STATUSES,
  type McpTaskStatus,
  TASK_LIMITS,
} from "./era/task-result.js";
export {
  readToolParamHeaders,
  type ToolParamHeader,
  type ToolParamHeadersResult,
  type ToolParamHeaderType,
} from "./era/tool-param-headers.js";
export { MCP_TRANSPORT_ERROR_CODES, McpTransportError, type McpTransportErrorCode } from "./errors.js";
export { escapeControlCharacters } from "./escape-control-characters.js";
export {
  createRedactor,
  MIN_SECRET_LENGTH,
  type RedactingStream,
  type Redactor,
  type RedactorOptions,
  redactJson,
} from "./redact.js";
export { createRedactingTransport } from "./redacting-transport.js";
export {
  MCP_ERROR_CODES,
  type McpAbortSignal,
  type McpCloseReason,
  type McpError,
  type McpNotification,
  type McpProgress,
  type McpRequestAnswer,
  type McpRequestContext,
  type McpRequestHandler,
  type McpResponse,
  type McpSendResult,
  type McpTaskEvent,
  type McpTransport,
  type McpWireProtocol,
  mcpFailure,
  toRequestContext,
} from "./transport.js";
