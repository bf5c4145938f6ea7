import { McpServerConnection } from "@agent/mcp-client";
import { createRedactingTransport, type McpTransport, type Redactor } from "@agent/mcp-transport";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { createStdioTransport, type StdioLaunch } from "@agent/mcp-transport/stdio";
import type { EventSink, ToolRegistry } from "@agent/tools";
import { isToolSelected, type ServerConfig } from "../config/index.js";
import { serverIdentity } from "./server-identity.js";
import { trackServerProcess } from "./server-processes.js";

/**
 * Opens a new transport to a configured server (stdio child process or Streamable HTTP). Everything
 * the server sends passes through `redactor` before anything else sees it. `launch` wraps a stdio
 * server's command (in the sandbox); when it refuses, nothing is spawned.
 */
export function connectTransport(
  server: ServerConfig,
  redactor: Redactor,
  launch?: StdioLaunch,
): McpTransport {
  return createRedactingTransport(openTransport(server, launch), redactor);
}

function openTransport(server: ServerConfig, launch: StdioLaunch | undefined): McpTransport {
  if (server.type === "stdio") {
    const transport = createStdioTransport({
      command: server.command,
      args: server.args,
      env: server.env,
      cwd: server.cwd,
      ...(launch ? { launch } : {}),
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
  redactor: Redactor,
  identityKey: Buffer,
  launch?: StdioLaunch,
): McpServerConnection {
  const limit = server.timeoutMs;
  return new McpServerConnection({
    name: server.name,
    identity: serverIdentity(server, identityKey),
    connect: () => connectTransport(server, redactor, launch),
    registry,
    events,
    includeTool: (remoteName) => isToolSelected(server, remoteName),
    ...(limit === undefined ? {} : { timeouts: { initializeMs: limit, listToolsMs: limit, callMs: limit } }),
  });
}
