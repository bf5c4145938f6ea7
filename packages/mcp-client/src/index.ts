// The public surface: what the README documents and what other packages use, with the types their
// signatures name. The rest (defaults, limits, catalog listings, parsing helpers) is the package's
// own; export a name here only with a changeset and a user for it.
export type {
  ElicitationAnswer,
  ElicitationHandler,
  ElicitationRequest,
  McpClientFeatures,
  McpRoot,
  SamplingAnswer,
  SamplingHandler,
  SamplingMessage,
  SamplingRequest,
} from "./client-features.js";
export type {
  McpServerConnectionOptions,
  McpServerSnapshot,
  McpServerState,
  McpServerTimeouts,
  ReconnectPolicy,
} from "./connection-options.js";
export {
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
} from "./elicitation-schema.js";
export { MCP_CLIENT_ERROR_CODES, McpClientError, type McpClientErrorCode } from "./errors.js";
export { type ClientInfo, type InitializeResult, initializeServer } from "./handshake.js";
export {
  MAX_SERVER_NAME_LENGTH,
  mcpToolName,
  parseMcpToolName,
  type ServerToolAction,
  serverNameProblem,
  serverOfToolName,
  serverToolName,
} from "./names.js";
export type { ProtocolFeatures, SupportedProtocolVersion } from "./protocol-version.js";
export type {
  McpPrompt,
  McpPromptArgument,
  McpResource,
  McpResourceTemplate,
  RejectedEntry,
} from "./server-catalog.js";
export { McpServerConnection } from "./server-connection.js";
export {
  type McpToolOutput,
  mapCallResult,
  mcpToolGroup,
  type RemoteCallResult,
  type RemoteToolPort,
  toLocalTool,
} from "./tool-mapping.js";
