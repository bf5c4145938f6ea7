// Misbehaves on shutdown: ignores SIGTERM and the end of stdin, and leaves a grandchild in its
// process group that also ignores SIGTERM and holds the server's stdout and stderr open.
import { spawn } from "node:child_process";
import { echoTool, record, serveTools } from "./server-kit.mjs";

process.on("SIGTERM", () => record("sigterm-ignored", { pid: process.pid }));
// Keeps the server alive after stdin ends.
setInterval(() => {}, 1000);

const grandchild = spawn(
  process.execPath,
  ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);"],
  // Inherited stdout/stderr: the pipes stay open after the server itself is gone.
  { stdio: ["ignore", "inherit", "inherit"] },
);
record("grandchild", { pid: grandchild.pid });

await serveTools("ignore-sigterm", () => [echoTool]);
