import type { McpServerConnection } from "@agent/mcp-client";
import { type CliIo, safeLine, styleFor, writeLine } from "../terminal/io.js";
import { describeServerFailure } from "../terminal/server-failure.js";
import { plural } from "../terminal/table.js";

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
      if (!progress) return;
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
