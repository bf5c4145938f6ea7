import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test, waitingIds } from "./e2e-helpers.js";

// Commands run bare (no --config, no --state-dir), as a user types them, from where the user stands.
describe.concurrent("configuration and state found from where the user stands", () => {
  test("from a subdirectory of the project the config and its state are found; nothing is created there", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({ mcpServers: { s: sandbox.scriptableServer("s") } });
    mkdirSync(join(sandbox.root, ".git"));
    const subdirectory = join(sandbox.workspace, "src", "deep");
    mkdirSync(subdirectory, { recursive: true });
    const held = await sandbox.run(["call", "mcp__s__echo", "--input", '{"message":"hi"}', "--json"], {
      bare: true,
      cwd: subdirectory,
    });
    expect(held.code, held.stderr).toBe(3);
    const { requestId, runId } = waitingIds(held.stdout);
    expect(held.stderr).toContain(`agent: using ${sandbox.configPath} (found above the current directory)`);

    const [listed, runs] = await Promise.all([
      sandbox.run(["approvals", "list", "--json"], { bare: true, cwd: subdirectory }),
      sandbox.run(["runs", "list", "--json"], { bare: true, cwd: join(sandbox.workspace, "src") }),
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const { approvals } = parseSingleJson(listed.stdout) as { approvals: { id: string }[] };
    expect(approvals.map((approval) => approval.id)).toEqual([requestId]);
    expect(runs.stdout).toContain(runId);
    // One state, beside the configuration: none in the directories the commands ran in.
    expect(existsSync(join(sandbox.root, ".agent", "state.db"))).toBe(true);
    expect(readdirSync(subdirectory)).toEqual([]);
    expect(readdirSync(join(sandbox.workspace, "src"))).toEqual(["deep"]);
  });

  test("where no config is, state commands fail saying where they looked, and create nothing", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    // A repository of its own below the sandbox (which has a config): the search stops at its root.
    const repository = join(sandbox.workspace, "other-repo");
    const subdirectory = join(repository, "lib");
    mkdirSync(join(repository, ".git"), { recursive: true });
    mkdirSync(subdirectory);
    sandbox.writeConfig({});
    const results = await Promise.all(
      [["approvals", "list"], ["runs", "list"], ["approvals", "show", "apr_1"], ["audit"]].map((args) =>
        sandbox.run(args, { bare: true, cwd: subdirectory }),
      ),
    );
    for (const result of results) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(
        `No agent.config.json or .mcp.json in ${subdirectory} or above it up to ${repository}`,
      );
      expect(result.stderr).toContain("[config_not_found]");
    }
    expect(readdirSync(subdirectory)).toEqual([]);
    expect(readdirSync(repository).sort()).toEqual([".git", "lib"]);
    expect(existsSync(join(sandbox.root, ".agent"))).toBe(false);
  });

  test("config show without a project prints the user-level config with its secrets redacted", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const secret = "user-literal-secret-0123456789";
    mkdirSync(join(sandbox.root, ".config", "agent"), { recursive: true });
    writeFileSync(
      join(sandbox.root, ".config", "agent", "config.json"),
      JSON.stringify({
        mcpServers: {
          local: { command: "some-server", env: { API_TOKEN: secret } },
          remote: { url: "https://example.invalid/mcp", headers: { Authorization: `Bearer ${secret}-h` } },
        },
      }),
    );
    const [json, human] = await Promise.all([
      sandbox.run(["config", "show", "--json"], { bare: true }),
      sandbox.run(["config", "show"], { bare: true }),
    ]);
    expect(json.code).toBe(2);
    expect(parseSingleJson(json.stdout)).toMatchObject({ project: null, settings: { mcpServers: {} } });
    for (const output of [json.stdout, json.stderr, human.stdout, human.stderr]) {
      expect(output).not.toContain(secret);
    }
  });

  test("a user-level config is merged under the project's, and config show says where each part came from", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    // HOME is the sandbox's root for the CLI, so this is ~/.config/agent/config.json.
    const userFile = join(sandbox.root, ".config", "agent", "config.json");
    mkdirSync(join(sandbox.root, ".config", "agent"), { recursive: true });
    writeFileSync(
      userFile,
      JSON.stringify({
        mcpServers: { shared: sandbox.scriptableServer("shared"), own: { command: "replaced-by-project" } },
        policy: { rules: [{ tool: "mcp__shared__echo", decision: "deny", reason: "not here" }] },
        toolTimeoutMs: 12_000,
      }),
    );
    sandbox.writeConfig({
      mcpServers: { own: sandbox.scriptableServer("own") },
      policy: { rules: [{ tool: "mcp__*__echo", decision: "allow" }] },
    });
    const [shown, human, denied, allowed] = await Promise.all([
      sandbox.run(["config", "show", "--json"]),
      sandbox.run(["config", "show"]),
      sandbox.run(["call", "mcp__shared__echo", "--input", '{"message":"x"}', "--json"]),
      sandbox.run(["call", "mcp__own__echo", "--input", '{"message":"x"}', "--json"]),
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    const document = parseSingleJson(shown.stdout) as {
      project: string;
      user: string;
      settings: { mcpServers: Record<string, { command: string }>; toolTimeoutMs: number };
      origins: Record<string, string>;
    };
    expect(document.project).toBe(sandbox.configPath);
    expect(document.user).toBe(userFile);
    expect(document.origins).toMatchObject({
      "mcpServers.own": sandbox.configPath,
      "mcpServers.shared": userFile,
      "policy.rules[0]": sandbox.configPath,
      "policy.rules[1]": userFile,
      toolTimeoutMs: userFile,
    });
    expect(document.settings.mcpServers.own?.command).toBe(process.execPath);
    expect(document.settings.toolTimeoutMs).toBe(12_000);
    expect(human.stdout).toMatch(/mcpServers\.shared\s+user/);
    expect(human.stdout).toMatch(/mcpServers\.own\s+project/);
    // Both servers are configured; the user's deny beats the project's broader allow.
    expect(denied.code).toBe(1);
    expect(denied.stdout).toContain("policy_denied");
    expect(allowed.code, allowed.stderr).toBe(0);
  });
});
