import { type McpClientFeatures, McpServerConnection } from "@agent/mcp-client";
import { createRedactingTransport, type McpTransport, type Redactor } from "@agent/mcp-transport";
import {
  createSseTransport,
  createStreamableHttpTransport,
  type McpAuthProvider,
} from "@agent/mcp-transport/http";
import { createStdioTransport, type StdioLaunch } from "@agent/mcp-transport/stdio";
import type { EventSink, ToolRegistry } from "@agent/tools";
import { isToolSelected, type ServerConfig } from "../config/index.js";
import { serverIdentity } from "./server-identity.js";
import { trackServerProcess } from "./server-processes.js";

/**
 * Opens a new transport to a configured server (stdio child process, Streamable HTTP, or legacy
 * HTTP+SSE). Everything
 * the server sends passes through `redactor` before anything else sees it. `launch` wraps a stdio
 * server's command (in the sandbox); when it refuses, nothing is spawned. `authProvider` authorizes
 * an HTTP or SSE server with OAuth.
 */
export function connectTransport(
  server: ServerConfig,
  redactor: Redactor,
  reach: ServerReach = {},
): McpTransport {
  return createRedactingTransport(openTransport(server, reach), redactor);
}

/** How a server is reached beyond its configuration: the stdio sandbox's launch, or an HTTP server's OAuth provider. */
export interface ServerReach {
  launch?: StdioLaunch | undefined;
  authProvider?: McpAuthProvider | undefined;
}

function openTransport(server: ServerConfig, { launch, authProvider }: ServerReach): McpTransport {
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
  const options = { url: server.url, headers: server.headers, ...(authProvider ? { authProvider } : {}) };
  return server.type === "sse" ? createSseTransport(options) : createStreamableHttpTransport(options);
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
  reach: ServerReach = {},
  features: McpClientFeatures = {},
): McpServerConnection {
  const limit = server.timeoutMs;
  return new McpServerConnection({
    name: server.name,
    identity: serverIdentity(server, identityKey),
    connect: () => {
      // Never started half-configured: the server fails alone, naming what to set.
      const missing = server.missingVariables;
      if (missing) {
        const names = missing.join(", ");
        throw new Error(
          `environment variable${missing.length === 1 ? "" : "s"} ${names} not set; set ${missing.length === 1 ? "it" : "them"} and retry`,
        );
      }
      return connectTransport(server, redactor, reach);
    },
    registry,
    events,
    includeTool: (remoteName) => isToolSelected(server, remoteName),
    features,
    ...(server.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: server.idleTimeoutMs }),
    ...(limit === undefined ? {} : { timeouts: { initializeMs: limit, listToolsMs: limit, callMs: limit } }),
  });
}
