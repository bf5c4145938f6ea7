import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { processGroupMembers, processTreeOf } from "./process-tree.js";

/** Preloaded into the server: binds every `listen(port)` to 127.0.0.1 and reports the port it got. */
const LOOPBACK_PRELOAD = fileURLToPath(new URL("./loopback-listen.mjs", import.meta.url));

/** An HTTP MCP server child process listening on a loopback port. */
export interface LoopbackHttpServer {
  url: string;
  process: ChildProcess;
  /** The live processes of the server: its tree and its process group. */
  processes(): number[];
  /** Kills the server's process group and waits for it to exit. */
  kill(): Promise<void>;
}

/**
 * Starts a Node HTTP MCP server script (e.g. server-everything with `streamableHttp`) on 127.0.0.1 and
 * a free port (the script must honour `PORT`), in its own process group. The caller kills it.
 */
export async function startLoopbackHttpServer(
  entry: string,
  args: readonly string[],
  options: { path?: string; startTimeoutMs?: number; env?: Readonly<Record<string, string>> } = {},
): Promise<LoopbackHttpServer> {
  const child = spawn(process.execPath, ["--import", LOOPBACK_PRELOAD, entry, ...args], {
    env: { ...options.env, PATH: process.env.PATH ?? "", PORT: "0" },
    // Its stdout is a request log nobody needs; stderr carries the port.
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  const pid = child.pid as number;
  const exited = once(child, "exit");
  const kill = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await exited;
  };
  const port = await new Promise<number>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(
      () => reject(new Error(`the server did not listen: ${output}`)),
      options.startTimeoutMs ?? 15_000,
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-2_000);
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", () => {
      clearTimeout(timer);
      reject(new Error(`the server exited: ${output}`));
    });
  }).catch(async (error: unknown) => {
    await kill();
    throw error;
  });
  return {
    url: `http://127.0.0.1:${port}${options.path ?? "/mcp"}`,
    process: child,
    processes: () => [...new Set([...processTreeOf(pid), ...processGroupMembers(pid)])],
    kill,
  };
}
