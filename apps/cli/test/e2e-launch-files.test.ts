import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  BWRAP_AVAILABLE,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
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
});
