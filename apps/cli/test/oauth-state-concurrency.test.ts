/**
 * Two processes saving OAuth tokens at once (two `agent` commands refreshing the tokens of two
 * servers) must not lose either server's tokens.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLineChildren, type LineChild } from "@agent/base/testing";
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
const children = createLineChildren();

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
  children.killAll();
  rmSync(root, { recursive: true, force: true });
});

function startWriter(stateDir: string, server: string): LineChild {
  return children.start(join(moduleDir, "child.mjs"), [stateDir, server, String(SAVES)]);
}

it("two processes saving tokens of different servers at once lose neither", async () => {
  const stateDir = join(root, "state");
  const writers = ["alpha", "beta"].map((server) => startWriter(stateDir, server));
  expect(await Promise.all(writers.map((writer) => writer.nextLine()))).toEqual(["ready", "ready"]);
  const finished = writers.map((writer) => writer.nextLine());
  for (const writer of writers) writer.send("go");
  expect(await Promise.all(finished)).toEqual(["done", "done"]);

  const store = createFileCredentialStore(stateDir);
  // Each server's latest tokens, not an older copy another writer read before it was saved.
  expect(await store.load("alpha")).toEqual({ url: "https://alpha.example/mcp", savedAt: SAVES });
  expect(await store.load("beta")).toEqual({ url: "https://beta.example/mcp", savedAt: SAVES });
}, 30_000);
