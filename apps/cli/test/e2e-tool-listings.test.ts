import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, type E2eSandbox, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

const LONG_DESCRIPTION = `Searches the documents. ${"Every word of this description matters to someone. ".repeat(8)}`;

function configure(sandbox: E2eSandbox): void {
  sandbox.writeConfig({
    policy: {
      rules: [
        { tool: "mcp__s__search", decision: "allow" },
        { tool: "mcp__s__env", decision: "deny", reason: "it would reveal the server's environment" },
      ],
    },
    mcpServers: {
      s: sandbox.scriptableServer("s", { tools: [{ name: "search", description: LONG_DESCRIPTION }] }),
      one: sandbox.scriptableServer("one", { tools: [] }),
    },
  });
}

describe.concurrent("tool listings", () => {
  test("mcp list --json gives each tool its policy decision; one tool is '1 tool'; rows fit the width", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox);
    const [json, human] = await Promise.all([
      sandbox.run(["mcp", "list", "--json"]),
      sandbox.run(["mcp", "list"], { env: { COLUMNS: "80" } }),
    ]);
    expect(json.code, json.stderr).toBe(0);
    const { servers } = parseSingleJson(json.stdout) as {
      servers: { name: string; tools: { name: string; policy: string }[] }[];
    };
    const policies = new Map(
      servers.flatMap((server) => server.tools.map((tool) => [tool.name, tool.policy] as const)),
    );
    expect(policies.get("mcp__s__search")).toBe("allow");
    expect(policies.get("mcp__s__env")).toBe("deny");
    expect(policies.get("mcp__s__echo")).toBe("ask");

    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.split("\n");
    const oneTools = servers.find((server) => server.name === "one")?.tools.length;
    expect(lines.find((line) => line.startsWith("one "))).toContain(
      oneTools === 1 ? "1 tool" : `${oneTools} tools`,
    );
    expect(human.stdout).not.toMatch(/\b1 tools\b/);
    // The tool table's rows (not the free-text lines about the server) fit the width.
    const rows = lines.filter((line) => /^ {2}(TOOL|mcp__)/.test(line));
    expect(rows.length).toBeGreaterThan(3);
    for (const line of rows) expect(line.length, line).toBeLessThanOrEqual(80);
    const search = lines.find((line) => line.includes("mcp__s__search"));
    expect(search).toMatch(/Searches the documents\..*…$/);
  });

  test("tools --format openai|anthropic leave out denied tools; tools alone prints a table", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox);
    const [openai, anthropic, own, table] = await Promise.all([
      sandbox.run(["tools", "--format", "openai"]),
      sandbox.run(["tools", "--format", "anthropic"]),
      sandbox.run(["tools", "--format", "json"]),
      sandbox.run(["tools"], { env: { COLUMNS: "72" } }),
    ]);
    const openaiNames = (JSON.parse(openai.stdout) as { function: { name: string } }[]).map(
      (tool) => tool.function.name,
    );
    const anthropicNames = (JSON.parse(anthropic.stdout) as { name: string }[]).map((tool) => tool.name);
    for (const names of [openaiNames, anthropicNames]) {
      expect(names).toContain("mcp__s__search");
      expect(names).toContain("read_file");
      expect(names).not.toContain("mcp__s__env");
    }
    const ownTools = JSON.parse(own.stdout) as { name: string; policy: string }[];
    expect(ownTools.find((tool) => tool.name === "mcp__s__env")?.policy).toBe("deny");

    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TOOL\s+EFFECT\s+TRUST\s+POLICY\s+TAINTED\s+DESCRIPTION$/);
    expect(lines.find((line) => line.startsWith("mcp__s__env "))).toMatch(
      /external\s+untrusted\s+deny\s+deny/,
    );
    expect(lines.find((line) => line.startsWith("read_file "))).toMatch(/read\s+trusted\s+allow\s+allow/);
    expect(lines.at(-1)).toBe(`${ownTools.length} tools`);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(72);
  });
});
