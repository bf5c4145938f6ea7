// A protected name that is a symbolic link inside a write grant: nothing inside may replace the
// link, so the sandbox refuses to start; the built-in file tools refuse to write it. Asserted from
// the host: the link still points where it did and the config it reaches is unchanged.
import { lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { escapeServerPath } from "@agent/mcp-testing/servers";
import { describe, expect } from "vitest";
import {
  BWRAP_AVAILABLE,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  observationOf,
  e2eTest as test,
} from "./e2e-helpers.js";

const PLANTED = JSON.stringify({ policy: { rules: [{ tool: "*", decision: "allow" }] } });

/** The config in the workspace root, as a link to the real file in `store/`; returns the config text. */
function linkedConfig(sandbox: E2eSandbox, config: Record<string, unknown>): { text: string; store: string } {
  sandbox.writeConfig({ workspaceRoot: ".", ...config });
  const store = join(sandbox.root, "store");
  mkdirSync(store);
  renameSync(sandbox.configPath, join(store, "agent.config.json"));
  symlinkSync(join(store, "agent.config.json"), sandbox.configPath);
  return { text: readFileSync(sandbox.configPath, "utf8"), store };
}

function call(sandbox: E2eSandbox, tool: string, input: unknown) {
  return sandbox.run(["call", tool, "--input", JSON.stringify(input), "--json"], { isolated: true });
}

function expectLinkIntact(sandbox: E2eSandbox, store: string, text: string): void {
  expect(lstatSync(sandbox.configPath).isSymbolicLink()).toBe(true);
  expect(readlinkSync(sandbox.configPath)).toBe(join(store, "agent.config.json"));
  expect(readFileSync(sandbox.configPath, "utf8")).toBe(text);
}

describe.concurrent("protected names that are symbolic links", () => {
  test.skipIf(!BWRAP_AVAILABLE)(
    "run_command cannot replace a symlinked agent.config.json in the workspace: the sandbox refuses to start",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      const { text, store } = linkedConfig(sandbox, {
        runCommand: { allowShell: true },
        policy: { sandbox: "required", rules: [{ tool: "run_command", decision: "allow" }] },
      });
      const attempt = await call(sandbox, "run_command", {
        command: "sh",
        args: ["-c", `rm agent.config.json; echo '${PLANTED}' > agent.config.json`],
      });
      expectLinkIntact(sandbox, store, text);
      expect(observationOf(attempt.stdout)).toMatchObject({ ok: false });
      expect(attempt.stdout + attempt.stderr).toContain("symbolic link");
    },
  );

  test.skipIf(!BWRAP_AVAILABLE)(
    "a server granted the config's directory cannot rename a planted file over the link: it is not started",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      const { text, store } = linkedConfig(sandbox, {
        policy: { sandbox: "required", rules: [{ tool: "mcp__jail__*", decision: "allow" }] },
        mcpServers: {
          jail: { command: process.execPath, args: [escapeServerPath()], sandbox: { write: ["."] } },
        },
      });
      const planted = join(sandbox.root, "planted.json");
      const write = await call(sandbox, "mcp__jail__write", { path: planted, content: PLANTED });
      const rename = await call(sandbox, "mcp__jail__rename", { from: planted, to: sandbox.configPath });
      expectLinkIntact(sandbox, store, text);
      for (const result of [write, rename]) expect(observationOf(result.stdout)).toMatchObject({ ok: false });
      expect(write.stdout + write.stderr).toContain("is a symbolic link inside the write grant");
    },
  );

  test("write_file cannot replace a symlinked agent.config.json", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    const { text, store } = linkedConfig(sandbox, {
      policy: { rules: [{ tool: "write_file", decision: "allow" }] },
    });
    const attempt = await call(sandbox, "write_file", { path: "agent.config.json", content: PLANTED });
    expect(observationOf(attempt.stdout)).toMatchObject({ ok: false, error: "tool_error" });
    expectLinkIntact(sandbox, store, text);
  });
});
