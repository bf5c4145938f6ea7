import { type McpClientFeatures, McpServerConnection } from "@agent/mcp-client";
import { createRedactingTransport, type McpTransport, type Redactor } from "@agent/mcp-transport";
import { createSseTransport, createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { createStdioTransport, type StdioLaunch } from "@agent/mcp-transport/stdio";
import type { EventSink, ToolRegistry } from "@agent/tools";
import { isToolSelected, type ServerConfig } from "../config/index.js";
import { serverIdentity } from "./server-identity.js";
import { trackServerProcess } from "./server-processes.js";

/**
 * Opens a new transport to a configured server (stdio child process, Streamable HTTP, or legacy
 * HTTP+SSE). Everything
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
  if (server.type === "sse") return createSseTransport({ url: server.url, headers: server.headers });
  return createStreamableHttpTransport({ url: server.url, headers: server.headers });
}

/**
 * A governed connection for one configured server, registering into `registry` and auditing to
 * `events`, offering the server `features` (the workspace root, the terminal's forms).
 */
export function createServerConnection(
  server: ServerConfig,
  registry: ToolRegistry,
  events: EventSink,
  redactor: Redactor,
  identityKey: Buffer,
  launch?: StdioLaunch,
  features: McpClientFeatures = {},
): McpServerConnection {
  const limit = server.timeoutMs;
  return new McpServerConnection({
    name: server.name,
    identity: serverIdentity(server, identityKey),
    connect: () => connectTransport(server, redactor, launch),
    registry,
    events,
    includeTool: (remoteName) => isToolSelected(server, remoteName),
    features,
    ...(server.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: server.idleTimeoutMs }),
    ...(limit === undefined ? {} : { timeouts: { initializeMs: limit, listToolsMs: limit, callMs: limit } }),
  });
}
