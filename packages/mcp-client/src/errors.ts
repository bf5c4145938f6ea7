import { CodedError, hasErrorBrand, messageOf } from "@agent/base";

/** Codes of {@link McpClientError}: why a server could not start or stay connected. */
export const MCP_CLIENT_ERROR_CODES = {
  unsupportedProtocolVersion: "unsupported_protocol_version",
  initializeFailed: "mcp_initialize_failed",
  invalidInitializeResult: "invalid_initialize_result",
  toolsListFailed: "mcp_tools_list_failed",
  invalidToolsList: "invalid_tools_list",
  /** `resources/list`, `resources/templates/list` or `prompts/list` failed. */
  listFailed: "mcp_list_failed",
  /** A resources or prompts listing was malformed, looped or never ended. */
  invalidList: "invalid_list",
  duplicateRemoteTool: "duplicate_remote_tool",
  toolNameClash: "tool_name_clash",
  invalidServerName: "invalid_server_name",
  connectFailed: "mcp_connect_failed",
  connectionClosed: "mcp_connection_closed",
  notConnected: "mcp_not_connected",
  /** An option passed to the client is out of range or of the wrong kind (thrown at construction). */
  invalidOption: "invalid_option",
  /** A server's tool listing exceeded the byte budget of one discovery. */
  listingTooLarge: "mcp_tools_list_too_large",
} as const;

/** A code of {@link MCP_CLIENT_ERROR_CODES}. */
export type McpClientErrorCode = (typeof MCP_CLIENT_ERROR_CODES)[keyof typeof MCP_CLIENT_ERROR_CODES];

const MARKER = Symbol.for("@agent/mcp-client.McpClientError");

/** Thrown when a server cannot start (handshake, discovery, registration) or the API is misused. */
export class McpClientError extends CodedError<McpClientErrorCode> {
  override readonly name = "McpClientError";
  /** The server this is about, when there is one. */
  readonly server: string | undefined;

  constructor(code: McpClientErrorCode, message: string, options: { server?: string; cause?: unknown } = {}) {
    super(MARKER, code, message, options);
    this.server = options.server;
  }

  /** Whether `value` is a McpClientError, even one thrown by another installed copy of this package. */
  static isInstance(value: unknown): value is McpClientError {
    return hasErrorBrand(value, MARKER);
  }
}

/** Wraps anything thrown while serving `server` as an {@link McpClientError} naming that server. */
export function toMcpClientError(error: unknown, server: string): McpClientError {
  if (error instanceof McpClientError) {
    return error.server === server
      ? error
      : new McpClientError(error.code, error.message, { server, cause: error.cause });
  }
  return new McpClientError(MCP_CLIENT_ERROR_CODES.connectFailed, messageOf(error), {
    server,
    cause: error,
  });
}

/** The error for a lifecycle phase that ran out of time. */
export function phaseTimeout(
  code: McpClientErrorCode,
  phase: string,
  timeoutMs: number,
  server: string,
  cause: unknown,
): McpClientError {
  return new McpClientError(code, `${phase} timed out after ${timeoutMs} ms.`, { server, cause });
}
