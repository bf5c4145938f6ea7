import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

describe.concurrent("configuration discovery", () => {
  test("./.mcp.json (Claude Code's project file, no keys of ours) is used when there is no agent.config.json", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const entry = sandbox.scriptableServer("claude");
    // Exactly what `claude mcp add --scope project` writes: a type and nothing of ours.
    writeFileSync(
      join(sandbox.workspace, ".mcp.json"),
      JSON.stringify({ mcpServers: { claude: { type: "stdio", ...entry } } }, null, 2),
    );
    const result = await sandbox.run(["mcp", "list", "--json"], {
      bare: true,
      cwd: sandbox.workspace,
      env: { AGENT_BWRAP: join(sandbox.root, "no-bwrap-here"), AGENT_STATE_DIR: sandbox.stateDir },
    });
    expect(result.stderr).toContain(
      `agent: using ${join(sandbox.workspace, ".mcp.json")} (Claude Code project file)`,
    );
    const { servers } = parseSingleJson(result.stdout) as { servers: { name: string; status: string }[] };
    expect(servers.map((server) => server.name)).toEqual(["claude"]);
  });

  test("both ./agent.config.json and ./.mcp.json is refused unless --config says which; --config is not announced", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    // Were .mcp.json the configuration, anything that may write the workspace could plant an
    // agent.config.json beside it that would win the next time: two candidates are never guessed.
    writeFileSync(
      join(sandbox.root, ".mcp.json"),
      JSON.stringify({ mcpServers: { other: { command: "nope" } } }),
    );
    sandbox.writeConfig({});
    const [found, named] = await Promise.all([
      sandbox.run(["mcp", "list", "--json"], { bare: true, env: { AGENT_STATE_DIR: sandbox.stateDir } }),
      sandbox.run(["mcp", "list", "--json"]),
    ]);
    expect(found.code).toBe(2);
    expect(found.stderr).toMatch(/config_ambiguous/);
    expect(found.stdout).toBe("");
    expect(named.code, named.stderr).toBe(0);
    expect(parseSingleJson(named.stdout)).toMatchObject({ servers: [] });
    expect(named.stderr).toBe("");
  });
});
