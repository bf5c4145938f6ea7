import type { StdioMcpTransport } from "@agent/mcp-transport/stdio";
import { safeText } from "../terminal/io.js";

/** The stdio server transports this process started, by server name (the latest one per server). */
const transports = new Map<string, StdioMcpTransport>();

/** Remembers a server's transport: for its stderr in error messages, and for the last-resort kill. */
export function trackServerProcess(server: string, transport: StdioMcpTransport): void {
  transports.set(server, transport);
}

/** The last lines a server wrote to stderr (escaped, bounded), or an empty string. */
export function serverStderrTail(server: string, lines = 5): string {
  const tail = transports.get(server)?.stderrTail() ?? "";
  return safeText(tail.trimEnd().split("\n").slice(-lines).join("\n"));
}

/**
 * SIGKILLs the process group of every server still running, synchronously. For an exit that cannot
 * wait for the orderly close (a second Ctrl-C): no server or grandchild is left behind.
 */
export function killServerProcessGroups(): void {
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
}
