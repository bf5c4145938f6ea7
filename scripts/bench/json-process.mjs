// A suite's measuring process: `node <script> <args>` prints one JSON document on stdout, which the
// parent reads when the child ends. A process of its own gives a measurement its own JIT state and
// heap, as a real agent process has, instead of the ones every other suite left behind.
import { spawn } from "node:child_process";
import { basename } from "node:path";

/**
 * Runs `script` with `args` in a Node process of its own and resolves with the JSON it printed;
 * rejects with its stderr if it fails. At cleanup it gets SIGTERM, and is awaited, so that it can
 * release what it opened itself (its servers, its temp files). `env` adds variables to this
 * process's environment (secrets such as a database URL go there, never into the arguments, which
 * any local user can read).
 */
export function runJsonProcess(cleanup, script, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args.map(String)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    const ended = new Promise((settle) => child.once("close", settle));
    const forget = cleanup.add(() => {
      child.kill("SIGTERM");
      return ended;
    }, child.pid);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      void forget();
      const name = `${basename(script)} ${args.join(" ")}`;
      if (code !== 0) reject(new Error(`${name} exited with ${code}: ${stderr.trim()}`));
      else resolve(JSON.parse(stdout));
    });
  });
}
