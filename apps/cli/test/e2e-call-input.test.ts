import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

const POLICY = { rules: [{ tool: "mcp__*", decision: "allow" }] };

describe.concurrent("agent call: input sources, result printing, unknown names", () => {
  test("--input - reads stdin and --input @file reads a file; a bad source is a usage error", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({ policy: POLICY, mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) } });
    writeFileSync(join(sandbox.root, "input.json"), '{"message":"from a file"}');
    writeFileSync(join(sandbox.root, "broken.json"), '{"message":');
    const piped = sandbox.start(["call", "mcp__s__echo", "--input", "-"], { stdin: true });
    piped.child.stdin?.end('{"message":"from stdin"}\n');
    const [fromStdin, fromFile, missing, broken] = await Promise.all([
      piped.exited,
      sandbox.run(["call", "mcp__s__echo", "--input", "@input.json"]),
      sandbox.run(["call", "mcp__s__echo", "--input", "@absent.json"]),
      sandbox.run(["call", "mcp__s__echo", "--input", "@broken.json"]),
    ]);
    expect(fromStdin.code, fromStdin.stderr).toBe(0);
    expect(fromStdin.stdout).toBe('{"message":"from stdin"}\n');
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect(fromFile.stdout).toBe('{"message":"from a file"}\n');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("absent.json");
    expect(missing.stderr).toContain("ENOENT");
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("is not valid JSON");
    // Only the two good calls reached the server.
    const calls = sandbox.received("s", "tools/call").map((record) => record.params);
    expect(calls).toHaveLength(2);
  });

  test("text content that is the structured content serialized is printed once", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const structured = { city: "Paris", temperature: 21 };
    sandbox.writeConfig({
      policy: POLICY,
      mcpServers: {
        r: sandbox.resultServer("r", {
          same: {
            content: [{ type: "text", text: JSON.stringify(structured) }],
            structuredContent: structured,
          },
          different: { content: [{ type: "text", text: "It is warm." }], structuredContent: structured },
        }),
      },
    });
    const [same, different] = await Promise.all([
      sandbox.run(["call", "mcp__r__same"]),
      sandbox.run(["call", "mcp__r__different"]),
    ]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toBe(`${JSON.stringify(structured)}\n`);
    expect(different.code, different.stderr).toBe(0);
    expect(different.stdout).toBe(`It is warm.\n${JSON.stringify(structured, null, 2)}\n`);
  });

  test("unknown_tool suggests the nearest tool and server names", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    sandbox.writeConfig({ policy: POLICY, mcpServers: { files: sandbox.scriptableServer("files") } });
    const [tool, server, far] = await Promise.all([
      sandbox.run(["call", "mcp__files__ecko"]),
      sandbox.run(["call", "mcp__fils__echo"]),
      sandbox.run(["call", "completely_different_thing"]),
    ]);
    expect(tool.code).toBe(1);
    expect(tool.stderr).toContain("unknown_tool");
    expect(tool.stderr).toContain("Did you mean: mcp__files__echo");
    expect(server.code).toBe(1);
    expect(server.stderr).toContain(
      'no enabled MCP server named "fils" is configured. Did you mean "files"?',
    );
    expect(far.code).toBe(1);
    expect(far.stderr).not.toContain("Did you mean");
  });
});
