export { CLOSE_MARGIN_MS, closeBoundAround } from "./close-deadline.js";
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
  type McpTransport,
  mcpFailure,
  toRequestContext,
} from "./transport.js";
