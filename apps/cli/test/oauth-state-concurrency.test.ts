/**
 * Two processes saving OAuth tokens at once (two `agent` commands refreshing the tokens of two
 * servers) must not lose either server's tokens.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { createFileCredentialStore } from "../src/state/index.js";
import { compileStateModules } from "./state-modules.js";

const SAVES = 150;

const CHILD = `
import { createFileCredentialStore } from "./oauth-token-store.js";
const [stateDir, server, saves] = process.argv.slice(2);
const store = createFileCredentialStore(stateDir);
process.stdout.write("ready\\n");
process.stdin.once("data", async () => {
  for (let savedAt = 1; savedAt <= Number(saves); savedAt += 1) {
    await store.save(server, { url: "https://" + server + ".example/mcp", savedAt });
  }
  process.stdout.write("done\\n");
  process.stdin.destroy();
});
`;

let root: string;
let moduleDir: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "agent-oauth-race-"));
  moduleDir = join(root, "modules");
  compileStateModules(moduleDir, [
    "oauth-token-store",
    "state-directory",
    "state-error",
    "state-files",
    "state-paths",
  ]);
  writeFileSync(join(moduleDir, "child.mjs"), CHILD);
});

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

function startWriter(stateDir: string, server: string): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [join(moduleDir, "child.mjs"), stateDir, server, String(SAVES)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

function nextLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    let errors = "";
    const onData = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      const newline = output.indexOf("\n");
      if (newline === -1) return;
      child.stdout.off("data", onData);
      resolve(output.slice(0, newline));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString("utf8");
    });
    child.once("exit", (code) => reject(new Error(`writer exited (${code}) before answering: ${errors}`)));
  });
}

it("two processes saving tokens of different servers at once lose neither", async () => {
  const stateDir = join(root, "state");
  const writers = ["alpha", "beta"].map((server) => startWriter(stateDir, server));
  expect(await Promise.all(writers.map(nextLine))).toEqual(["ready", "ready"]);
  const finished = writers.map(nextLine);
  for (const writer of writers) writer.stdin.write("go\n");
  expect(await Promise.all(finished)).toEqual(["done", "done"]);

  const store = createFileCredentialStore(stateDir);
  // Each server's latest tokens, not an older copy another writer read before it was saved.
  expect(await store.load("alpha")).toEqual({ url: "https://alpha.example/mcp", savedAt: SAVES });
  expect(await store.load("beta")).toEqual({ url: "https://beta.example/mcp", savedAt: SAVES });
}, 30_000);
