import { McpServerConnection } from "@agent/mcp-client";
import type { McpTransport } from "@agent/mcp-transport";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { createStdioTransport } from "@agent/mcp-transport/stdio";
import { digestJson, type EventSink, type ToolRegistry } from "@agent/tools";
import { isToolSelected, type ServerConfig } from "../config/index.js";
import { trackServerProcess } from "./server-processes.js";

/** Opens a new transport to a configured server (stdio child process or Streamable HTTP). */
export function connectTransport(server: ServerConfig): McpTransport {
  if (server.type === "stdio") {
    const transport = createStdioTransport({
      command: server.command,
      args: server.args,
      env: server.env,
      cwd: server.cwd,
    });
    trackServerProcess(server.name, transport);
    return transport;
  }
  return createStreamableHttpTransport({ url: server.url, headers: server.headers });
}

/** A governed connection for one configured server, registering into `registry` and auditing to `events`. */
export function createServerConnection(
  server: ServerConfig,
  registry: ToolRegistry,
  events: EventSink,
): McpServerConnection {
  const limit = server.timeoutMs;
  return new McpServerConnection({
    name: server.name,
    identity: serverIdentity(server),
    connect: () => connectTransport(server),
    registry,
    events,
    includeTool: (remoteName) => isToolSelected(server, remoteName),
    ...(limit === undefined ? {} : { timeouts: { initializeMs: limit, listToolsMs: limit, callMs: limit } }),
  });
}

/**
 * A digest of how a server is reached (command line, working directory and environment, or URL and
 * headers): every tool's fingerprint includes it, so pointing a name at another server, or at the
 * same one with other credentials, voids the approvals given before. Only the digest is kept.
 */
export function serverIdentity(server: ServerConfig): string {
  return server.type === "stdio"
    ? digestJson({
        type: server.type,
        command: server.command,
        args: server.args,
        cwd: server.cwd,
        env: server.env,
      })
    : digestJson({ type: server.type, url: server.url, headers: server.headers });
}
