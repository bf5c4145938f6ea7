import { type McpClientFeatures, McpServerConnection } from "@agent/mcp-client";
import { createRedactingTransport, type McpTransport, type Redactor } from "@agent/mcp-transport";
import {
  createSseTransport,
  createStreamableHttpTransport,
  type McpAuthProvider,
} from "@agent/mcp-transport/http";
import { createStdioTransport, type StdioLaunch, type StdioMcpTransport } from "@agent/mcp-transport/stdio";
import type { EventSink, ToolRegistry } from "@agent/tools";
import { isToolSelected, type ServerConfig } from "../config/index.js";
import { type CliIo, safeLine, safeText, styleFor, writeLine } from "../terminal/io.js";
import { describeServerFailure } from "../terminal/server-failure.js";
import { plural } from "../terminal/table.js";
import { serverIdentity } from "./server-identity.js";

/**
 * The stdio server processes one `agent` process started: for their stderr in error messages, and
 * for the last-resort kill of a second Ctrl-C. Made once by the CLI's entry (which owns the signal
 * handlers) and handed down to where transports are opened.
 */
export interface ServerProcesses {
  /** Remembers a server's transport (the latest one per server name). */
  track(server: string, transport: StdioMcpTransport): void;
  /** The last lines a server wrote to stderr (escaped, bounded), or an empty string. */
  stderrTail(server: string, lines?: number): string;
  /**
   * SIGKILLs the process group of every server still running, synchronously. For an exit that
   * cannot wait for the orderly close: no server or grandchild is left behind.
   */
  killAll(): void;
}

/** An empty {@link ServerProcesses}. */
export function createServerProcesses(): ServerProcesses {
  const transports = new Map<string, StdioMcpTransport>();
  return {
    track(server, transport) {
      transports.set(server, transport);
    },
    stderrTail(server, lines = 5) {
      const tail = transports.get(server)?.stderrTail() ?? "";
      return safeText(tail.trimEnd().split("\n").slice(-lines).join("\n"));
    },
    killAll() {
      for (const transport of transports.values()) {
        // The whole group, even when its leader has exited: a grandchild may still hold on.
        const pid = transport.pid();
        if (pid === undefined) continue;
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    },
  };
}

/**
 * How a server is reached beyond its configuration: the stdio sandbox's launch and where its
 * process is recorded, or an HTTP server's OAuth provider.
 */
export interface ServerReach {
  launch?: StdioLaunch | undefined;
  /** Where a started stdio server's process is remembered (its stderr, the last-resort kill). */
  processes?: ServerProcesses | undefined;
  authProvider?: McpAuthProvider | undefined;
}

/**
 * Opens a new transport to a configured server (stdio child process, Streamable HTTP, or legacy
 * HTTP+SSE). Everything the server sends passes through `redactor` before anything else sees it.
 * `launch` wraps a stdio server's command (in the sandbox); when it refuses, nothing is spawned.
 * `authProvider` authorizes an HTTP or SSE server with OAuth.
 */
export function connectTransport(
  server: ServerConfig,
  redactor: Redactor,
  reach: ServerReach = {},
): McpTransport {
  return createRedactingTransport(openTransport(server, reach), redactor);
}

function openTransport(server: ServerConfig, { launch, processes, authProvider }: ServerReach): McpTransport {
  if (server.type === "stdio") {
    const transport = createStdioTransport({
      command: server.command,
      args: server.args,
      env: server.env,
      cwd: server.cwd,
      ...(launch ? { launch } : {}),
    });
    processes?.track(server.name, transport);
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

/**
 * Starts the connections concurrently; one failing server never stops the others (its failure is
 * kept on the connection for listings). On a terminal, each server's outcome is shown as it lands.
 */
export async function connectServers(
  connections: readonly McpServerConnection[],
  io: CliIo,
  signal?: AbortSignal,
): Promise<void> {
  if (connections.length === 0) return;
  const progress = Boolean(io.stderr.isTTY);
  const style = styleFor(io.stderr, io.env);
  if (progress) {
    const names = connections.map((connection) => connection.name).join(", ");
    writeLine(io.stderr, style.dim(`Connecting to ${connections.length} MCP server(s): ${safeLine(names)}…`));
  }
  await Promise.all(
    connections.map(async (connection) => {
      const started = performance.now();
      try {
        await connection.start(signal);
      } catch {
        // Kept on the connection (state "failed", error) and reported by the command.
      }
      // Once interrupted, every server still connecting fails for that one reason: the command
      // says so once, not once per server.
      if (!progress || signal?.aborted) return;
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const snapshot = connection.snapshot();
      const line =
        snapshot.state === "ready"
          ? `${style.green("✓")} ${safeLine(connection.name)}  ${plural(snapshot.tools.length, "tool")}  ${seconds}s`
          : `${style.red("✗")} ${safeLine(connection.name)}  ${describeServerFailure(snapshot)}`;
      writeLine(io.stderr, `  ${line}`);
    }),
  );
}
