export {
  DEFAULT_RECONNECT_POLICY,
  DEFAULT_SERVER_TIMEOUTS,
  MAX_TIMEOUT_MS,
  type McpServerConnectionOptions,
  type McpServerSnapshot,
  type McpServerState,
  type McpServerTimeouts,
  type ReconnectPolicy,
} from "./connection-options.js";
export {
  DEFAULT_MAX_LISTING_BYTES,
  DEFAULT_MAX_PAGES,
  DEFAULT_MAX_TOOLS,
  type ListToolsOptions,
  listTools,
  type McpToolDescriptor,
  type RejectedTool,
  type ToolListing,
} from "./discovery.js";
export { MCP_CLIENT_ERROR_CODES, McpClientError, type McpClientErrorCode } from "./errors.js";
export {
  type ClientInfo,
  DEFAULT_CLIENT_INFO,
  type InitializeResult,
  initializeServer,
} from "./handshake.js";
export {
  assertServerName,
  MAX_SERVER_NAME_LENGTH,
  MCP_TOOL_PREFIX,
  mcpToolName,
  parseMcpToolName,
  remoteToolNameProblem,
  serverNameProblem,
} from "./names.js";
export {
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type SupportedProtocolVersion,
} from "./protocol-version.js";
export { McpServerConnection } from "./server-connection.js";
export {
  type McpToolOutput,
  mapCallResult,
  mcpToolGroup,
  type RemoteToolCaller,
  toLocalTool,
} from "./tool-mapping.js";
