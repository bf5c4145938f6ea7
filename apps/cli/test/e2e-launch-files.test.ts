import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { escapeServerPath } from "@agent/mcp-testing/servers";
import { describe, expect } from "vitest";
import {
  BWRAP_AVAILABLE,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  firstText,
  observationOf,
  e2eTest as test,
} from "./e2e-helpers.js";

const SCRIPT = "// the MCP server this configuration runs, with its secrets\n";

/** A workspace holding the script a configured server runs, and a policy that lets the model write. */
function setUp(sandbox: E2eSandbox): string {
  mkdirSync(join(sandbox.root, "tools"));
  const script = join(sandbox.root, "tools", "server.mjs");
  writeFileSync(script, SCRIPT);
  writeFileSync(
    sandbox.configPath,
    JSON.stringify({
      workspaceRoot: ".",
      runCommand: { allowShell: true },
      mcpServers: { local: { command: process.execPath, args: ["tools/server.mjs"], disabled: true } },
      policy: {
        rules: ["write_file", "read_file", "run_command"].map((tool) => ({ tool, decision: "allow" })),
      },
    }),
  );
  return script;
}

function call(sandbox: E2eSandbox, tool: string, input: unknown) {
  return sandbox.run(
    ["--config", sandbox.configPath, "call", tool, "--input", JSON.stringify(input), "--json"],
    { bare: true, isolated: true },
  );
}

describe.concurrent("the files configured servers run from", () => {
  test("write_file may read but never rewrite a server's script", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    const script = setUp(sandbox);
    const written = await call(sandbox, "write_file", { path: "tools/server.mjs", content: "evil()\n" });
    expect(written.code, written.stderr).toBe(1);
    expect(observationOf(written.stdout)).toMatchObject({ ok: false, error: "tool_error" });
    expect(String(observationOf(written.stdout).message)).toContain("a configured MCP server runs from it");
    expect(readFileSync(script, "utf8")).toBe(SCRIPT);

    const read = await call(sandbox, "read_file", { path: "tools/server.mjs" });
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toContain("the MCP server this configuration runs");
    // Other files of the workspace stay writable.
    const other = await call(sandbox, "write_file", { path: "tools/notes.txt", content: "ok\n" });
    expect(other.code, other.stderr).toBe(0);
  });

  test.skipIf(!BWRAP_AVAILABLE)(
    "a sandboxed command can neither change the script nor move its folder aside",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      const script = setUp(sandbox);
      const attempt = await call(sandbox, "run_command", {
        command: "sh",
        args: [
          "-c",
          "echo 'evil()' > tools/server.mjs; echo 'evil()' > planted.mjs; mv planted.mjs tools/server.mjs; mv tools tools2; echo done",
        ],
      });
      expect(attempt.code, attempt.stdout + attempt.stderr).toBe(0);
      expect(observationOf(attempt.stdout)).toMatchObject({ ok: true });
      expect(readFileSync(script, "utf8")).toBe(SCRIPT);
      expect(existsSync(join(sandbox.root, "tools2"))).toBe(false);
      // The command did run, and wrote where it may.
      expect(readFileSync(join(sandbox.root, "planted.mjs"), "utf8")).toBe("evil()\n");
    },
  );

  test.skipIf(!BWRAP_AVAILABLE)(
    "a server writes the data files its arguments name in its own write grant, on every start; its script stays read-only",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      const data = join(sandbox.workspace, "data");
      mkdirSync(data);
      const log = join(data, "server.log");
      // The second start: the log its first start created is there now.
      writeFileSync(log, "first start\n");
      const helper = join(data, "helper.mjs");
      writeFileSync(helper, SCRIPT);
      sandbox.writeConfig({
        policy: { sandbox: "required", rules: [{ tool: "mcp__jail__*", decision: "allow" }] },
        mcpServers: {
          jail: {
            command: process.execPath,
            args: [escapeServerPath(), "--log", log, "--require", helper],
            sandbox: { write: ["data"] },
          },
        },
      });
      const write = async (path: string, content: string) => {
        const result = await sandbox.run(
          ["call", "mcp__jail__write", "--input", JSON.stringify({ path, content }), "--json"],
          { isolated: true },
        );
        expect(result.code, result.stderr).toBe(0);
        return JSON.parse(firstText(observationOf(result.stdout)));
      };
      expect(await write(log, "second start\n")).toEqual({ ok: true });
      expect(readFileSync(log, "utf8")).toBe("second start\n");
      expect(await write(helper, "evil()\n")).toMatchObject({ ok: false });
      expect(readFileSync(helper, "utf8")).toBe(SCRIPT);
    },
  );

  test("launchFiles names what a server runs from: write_file refuses it, and a listed data file is free", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const script = setUp(sandbox);
    const notes = join(sandbox.root, "tools", "notes.txt");
    writeFileSync(notes, "notes\n");
    writeFileSync(
      sandbox.configPath,
      JSON.stringify({
        workspaceRoot: ".",
        mcpServers: {
          local: {
            command: process.execPath,
            args: ["tools/notes.txt"],
            launchFiles: ["tools/server.mjs"],
            disabled: true,
          },
        },
        policy: { rules: [{ tool: "write_file", decision: "allow" }] },
      }),
    );
    const refused = await call(sandbox, "write_file", { path: "tools/server.mjs", content: "evil()\n" });
    expect(observationOf(refused.stdout)).toMatchObject({ ok: false, error: "tool_error" });
    expect(readFileSync(script, "utf8")).toBe(SCRIPT);
    const written = await call(sandbox, "write_file", { path: "tools/notes.txt", content: "mine\n" });
    expect(written.code, written.stderr).toBe(0);
    expect(readFileSync(notes, "utf8")).toBe("mine\n");
  });
});
