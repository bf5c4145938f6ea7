export {
  clientCapabilities,
  type ElicitationAnswer,
  type ElicitationHandler,
  type ElicitationRequest,
  type McpClientFeatures,
  type McpRoot,
  type SamplingAnswer,
  type SamplingHandler,
  type SamplingMessage,
  type SamplingRequest,
} from "./client-features.js";
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
export {
  type CompletedAnswer,
  completeElicitationAnswer,
  type ElicitationField,
  type ElicitationOption,
  type ElicitationValue,
  fieldValueProblem,
  looksSensitive,
  type ParsedElicitationSchema,
  parseElicitationSchema,
} from "./elicitation-schema.js";
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
  MCP_SERVER_TOOL_PREFIX,
  MCP_TOOL_PREFIX,
  mcpToolName,
  parseMcpToolName,
  remoteToolNameProblem,
  type ServerToolAction,
  serverNameProblem,
  serverOfToolName,
  serverToolName,
} from "./names.js";
export {
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  type ProtocolFeatures,
  protocolFeatures,
  SUPPORTED_PROTOCOL_VERSIONS,
  type SupportedProtocolVersion,
} from "./protocol-version.js";
export {
  type CatalogListing,
  DEFAULT_MAX_CATALOG_ENTRIES,
  listPrompts,
  listResources,
  listResourceTemplates,
  type McpPrompt,
  type McpPromptArgument,
  type McpResource,
  type McpResourceTemplate,
  type RejectedEntry,
  templateMatcher,
} from "./server-catalog.js";
export { McpServerConnection } from "./server-connection.js";
export { isAdvertised, type PromptOutput, type ResourceReadOutput } from "./server-tools-builtin.js";
export {
  type McpToolOutput,
  mapCallResult,
  mcpToolGroup,
  type RemoteCallResult,
  type RemoteToolPort,
  toLocalTool,
} from "./tool-mapping.js";
