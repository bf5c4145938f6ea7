export { MCP_TRANSPORT_ERROR_CODES, McpTransportError, type McpTransportErrorCode } from "./errors.js";
export { escapeControlCharacters } from "./escape-control-characters.js";
export { createRedactor } from "./redact.js";
export {
  MCP_ERROR_CODES,
  type McpCloseReason,
  type McpError,
  type McpNotification,
  type McpProgress,
  type McpRequestContext,
  type McpResponse,
  type McpSendResult,
  type McpTransport,
  mcpFailure,
  toRequestContext,
} from "./transport.js";
