import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { onTestFinished } from "vitest";
import { EVERYTHING_ENTRY } from "./helpers.js";

const LOOPBACK_PRELOAD = fileURLToPath(new URL("./fixtures/loopback-listen.mjs", import.meta.url));

/** A server-everything child process in Streamable HTTP mode on a loopback port. */
export interface EverythingHttpServer {
  url: string;
  process: ChildProcess;
  /** Kills the server (and its process group) and waits for it to exit. */
  kill: () => Promise<void>;
}

/** Starts server-everything over Streamable HTTP on 127.0.0.1 (a free port); killed when the current test ends. */
export async function startEverythingHttp(): Promise<EverythingHttpServer> {
  const child = spawn(process.execPath, ["--import", LOOPBACK_PRELOAD, EVERYTHING_ENTRY, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: "0" },
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
    } catch {}
    await exited;
  };
  onTestFinished(kill);
  const port = await new Promise<number>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen: ${output}`)), 15_000);
    child.stderr?.on("data", (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-2000);
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once("exit", () => reject(new Error(`server-everything exited: ${output}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, process: child, kill };
}
