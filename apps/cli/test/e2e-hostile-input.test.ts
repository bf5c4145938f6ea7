import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

describe.concurrent("deeply nested input", () => {
  test("--input nested 20,000 levels deep is a usage error for local and MCP tools, never a stack overflow", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { defaults: { external: "allow" } },
      mcpServers: { s: sandbox.scriptableServer("s") },
    });
    const deep = `{"message":${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
    for (const tool of ["read_file", "mcp__s__echo"]) {
      const result = await sandbox.run(["call", tool, "--input", deep]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--input is nested more than 128 levels deep");
      expect(result.stderr).not.toMatch(/call stack/i);
    }
    // Nothing was recorded or sent: the server never saw a call.
    expect(sandbox.auditEvents().filter((event) => String(event.type).startsWith("tool_call_"))).toEqual([]);
  });

  test("a result nested 20,000 levels deep is reported, not shown; the run is recorded completed", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { defaults: { external: "allow" } },
      mcpServers: { deep: sandbox.misbehavingServer("deep", "deep-result") },
    });
    const call = await sandbox.run(["call", "mcp__deep__deep", "--json"]);
    expect(call.code).toBe(0);
    expect(call.stderr).toContain("nested more than 256 levels deep; it is not shown or kept");
    expect(call.stderr).not.toMatch(/call stack/i);
    const runs = await sandbox.run(["runs", "list", "--json"]);
    expect(runs.stdout).toContain('"completed"');
  });
});
