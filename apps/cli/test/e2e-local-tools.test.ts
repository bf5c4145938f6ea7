import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  firstText,
  observationOf,
  parseSingleJson,
  e2eTest as test,
} from "./e2e-helpers.js";

/** A workspace with a file, a subdirectory, and a symbolic link that leads out of it; a secret outside. */
function prepareWorkspace(sandbox: E2eSandbox): { secret: string } {
  writeFileSync(join(sandbox.workspace, "notes.txt"), "local content\n");
  mkdirSync(join(sandbox.workspace, "sub"));
  const secret = join(sandbox.root, "secret.txt");
  writeFileSync(secret, "outside the workspace\n");
  symlinkSync(sandbox.root, join(sandbox.workspace, "escape"));
  return { secret };
}

function call(sandbox: E2eSandbox, tool: string, input: unknown) {
  return sandbox.run(["call", tool, "--input", JSON.stringify(input), "--json"]);
}

describe.concurrent("built-in local tools", () => {
  test("are confined to the workspace root: '..', absolute paths and symbolic links are refused", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const { secret } = prepareWorkspace(sandbox);
    sandbox.writeConfig({ policy: { rules: [{ tool: "write_file", decision: "allow" }] } });

    const refused = await Promise.all([
      call(sandbox, "read_file", { path: "../secret.txt" }),
      call(sandbox, "read_file", { path: secret }),
      call(sandbox, "read_file", { path: "escape/secret.txt" }),
      call(sandbox, "list_directory", { path: ".." }),
      call(sandbox, "write_file", { path: "../planted.txt", content: "x" }),
      call(sandbox, "write_file", { path: "escape/planted.txt", content: "x" }),
    ]);
    for (const result of refused) {
      expect(result.code, result.stdout).toBe(1);
      const observation = observationOf(result.stdout);
      expect(observation).toMatchObject({ ok: false, error: "tool_error" });
      expect(String(observation.message)).toMatch(/^Refused path /);
      expect(result.stdout).not.toContain("outside the workspace\\n");
    }
    expect(existsSync(join(sandbox.root, "planted.txt"))).toBe(false);

    const allowed = await Promise.all([
      call(sandbox, "read_file", { path: "notes.txt" }),
      call(sandbox, "list_directory", {}),
      call(sandbox, "write_file", { path: "sub/new.txt", content: "written" }),
    ]);
    expect(allowed.map((result) => result.code)).toEqual([0, 0, 0]);
    expect(observationOf(allowed[0]?.stdout ?? "").output).toMatchObject({ content: "local content\n" });
    expect(observationOf(allowed[1]?.stdout ?? "").output).toMatchObject({
      entries: expect.arrayContaining([
        { name: "escape", type: "symlink" },
        expect.objectContaining({ name: "notes.txt", type: "file" }),
      ]),
    });
    expect(readFileSync(join(sandbox.workspace, "sub", "new.txt"), "utf8")).toBe("written");
  });

  test("write_file is a write: held for approval by default", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    prepareWorkspace(sandbox);
    sandbox.writeConfig({});
    const result = await call(sandbox, "write_file", { path: "held.txt", content: "x" });
    expect(result.code).toBe(3);
    expect(parseSingleJson(result.stdout)).toMatchObject({ type: "waiting", reason: "approval_required" });
    expect(existsSync(join(sandbox.workspace, "held.txt"))).toBe(false);
  });

  test("a server tool named like a local one is namespaced and never replaces it", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    prepareWorkspace(sandbox);
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__x__read_file", decision: "allow" }] },
      mcpServers: {
        x: sandbox.scriptableServer("x", {
          wire: true,
          tools: [
            { name: "read_file", description: "Reads from the server.", result: "REMOTE" },
            { name: "write_file", description: "Writes on the server.", result: "REMOTE-WRITE" },
          ],
        }),
      },
    });

    const [tools, local, remote] = await Promise.all([
      sandbox.run(["tools", "--format", "json"]),
      call(sandbox, "read_file", { path: "notes.txt" }),
      call(sandbox, "mcp__x__read_file", {}),
    ]);

    expect(tools.code, tools.stderr).toBe(0);
    const registered = JSON.parse(tools.stdout) as { name: string; effect: string; group: string | null }[];
    expect(registered.filter((tool) => tool.name === "read_file")).toEqual([
      expect.objectContaining({ effect: "read", group: null }),
    ]);
    expect(registered.filter((tool) => tool.name === "write_file")).toEqual([
      expect.objectContaining({ effect: "write", group: null }),
    ]);
    expect(registered).toContainEqual(
      expect.objectContaining({ name: "mcp__x__read_file", effect: "external", group: "mcp:x" }),
    );
    expect(registered).toContainEqual(
      expect.objectContaining({ name: "mcp__x__write_file", effect: "external", group: "mcp:x" }),
    );

    expect(local.code).toBe(0);
    expect(observationOf(local.stdout).output).toMatchObject({ content: "local content\n" });
    expect(remote.code).toBe(0);
    expect(firstText(observationOf(remote.stdout))).toBe("REMOTE");
    // Only the namespaced call went to the server.
    expect(sandbox.received("x", "tools/call").map((record) => record.params)).toEqual([
      expect.objectContaining({ name: "read_file", arguments: {} }),
    ]);
  });
});
