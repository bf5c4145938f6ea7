import { messageOf } from "@agent/base";
import type { McpCloseReason, McpTransport } from "@agent/mcp-transport";
import { MCP_CLIENT_ERROR_CODES, McpClientError } from "./errors.js";
import { installServerRequestHandlers, type ServerRequestContext } from "./server-requests.js";

/** What a connection listens to on the transport it opened (its sessions hear the notifications). */
export interface TransportListeners {
  closed(transport: McpTransport, reason: McpCloseReason): void;
  /** What the handlers of the server's requests (roots, elicitation, sampling) need. */
  requests: ServerRequestContext;
}

/** Starts a server's transport through `connect`; a failure to start throws `mcp_connect_failed`. */
export async function startTransport(
  server: string,
  connect: () => McpTransport | Promise<McpTransport>,
): Promise<McpTransport> {
  try {
    return await connect();
  } catch (cause) {
    const message = `Could not start server "${server}": ${messageOf(cause)}`;
    throw new McpClientError(MCP_CLIENT_ERROR_CODES.connectFailed, message, { server, cause });
  }
}

/** Subscribes a connection to its new transport; returns the functions that undo each subscription. */
export function listenTo(transport: McpTransport, listeners: TransportListeners): (() => void)[] {
  return [
    transport.onClose((reason) => listeners.closed(transport, reason)),
    ...installServerRequestHandlers(transport, listeners.requests),
  ];
}
