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
