import type { McpRequestContext, McpTransport } from "@agent/mcp-transport";
import { MCP_CLIENT_ERROR_CODES, McpClientError } from "./errors.js";
import {
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type SupportedProtocolVersion,
} from "./protocol-version.js";
import { describeValue, isRecord } from "./records.js";

/** How the client introduces itself in `initialize`. */
export interface ClientInfo {
  name: string;
  version: string;
}

/** The client info sent when the caller gives none. */
export const DEFAULT_CLIENT_INFO: ClientInfo = Object.freeze({ name: "agent-harness", version: "0.1.0" });

/** What the server said about itself during the handshake. */
export interface InitializeResult {
  protocolVersion: SupportedProtocolVersion;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string } | undefined;
  instructions: string | undefined;
}

/**
 * Performs the MCP handshake: offers our newest protocol version, accepts the server's answer only
 * if it is one we support (else throws `unsupported_protocol_version` and sends nothing more), then
 * sends `notifications/initialized` as a notification (no id, nothing awaited). `capabilities` are
 * the client's, as `clientCapabilities` builds them (none by default).
 */
export async function initializeServer(
  transport: McpTransport,
  context: McpRequestContext,
  clientInfo: ClientInfo = DEFAULT_CLIENT_INFO,
  capabilities: Record<string, unknown> = {},
): Promise<InitializeResult> {
  const result = await requestInitialize(transport, context, clientInfo, capabilities);
  await confirmInitialized(transport);
  return result;
}

/** The handshake's first half: `initialize`, its answer read and checked (see {@link initializeServer}). */
export async function requestInitialize(
  transport: McpTransport,
  context: McpRequestContext,
  clientInfo: ClientInfo,
  capabilities: Record<string, unknown>,
): Promise<InitializeResult> {
  const response = await transport.request(
    "initialize",
    // Only what the caller offers (roots, elicitation, sampling): any other server request gets -32601.
    { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo },
    context,
  );
  if (!response.ok) {
    throw new McpClientError(
      MCP_CLIENT_ERROR_CODES.initializeFailed,
      `initialize failed (${response.error.code}): ${response.error.message}`,
    );
  }
  const result = response.result;
  if (!isRecord(result)) {
    throw new McpClientError(
      MCP_CLIENT_ERROR_CODES.invalidInitializeResult,
      `initialize returned ${describeValue(result)}, not an object`,
    );
  }
  const { protocolVersion } = result;
  if (!isSupportedProtocolVersion(protocolVersion)) {
    throw new McpClientError(
      MCP_CLIENT_ERROR_CODES.unsupportedProtocolVersion,
      `The server answered protocol version ${describeValue(protocolVersion)}; this client supports ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}.`,
    );
  }
  return {
    protocolVersion,
    capabilities: isRecord(result.capabilities) ? result.capabilities : {},
    serverInfo: readServerInfo(result.serverInfo),
    instructions: typeof result.instructions === "string" ? result.instructions : undefined,
  };
}

/** The handshake's second half: `notifications/initialized`, after which the server may send requests. */
export async function confirmInitialized(transport: McpTransport): Promise<void> {
  const notified = await transport.notify("notifications/initialized");
  if (!notified.ok) {
    throw new McpClientError(
      MCP_CLIENT_ERROR_CODES.initializeFailed,
      `notifications/initialized failed: ${notified.error.message}`,
    );
  }
}

function readServerInfo(value: unknown): InitializeResult["serverInfo"] {
  if (!isRecord(value) || typeof value.name !== "string") return undefined;
  return { name: value.name, version: typeof value.version === "string" ? value.version : "" };
}
