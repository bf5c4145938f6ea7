import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

interface ListedServer {
  name: string;
  status: string;
  auth: string | null;
  protocolVersion: string | null;
  error: { code: string; message: string; stderr: string[]; sandbox: unknown } | null;
  tools: { name: string; remoteName: string; effect: string; description: string }[];
  rejected: { remoteName: string; reason: string }[];
}

const PATTERN_TOOL = {
  name: "pattern",
  description: "Uses a pattern the linear-time engine cannot match (a backreference).",
  inputSchema: { type: "object", properties: { code: { type: "string", pattern: "^([a-z])\\1$" } } },
};

describe.concurrent("agent mcp list", () => {
  test("one failing server does not stop the others; servers connect concurrently", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      mcpServers: {
        good: sandbox.scriptableServer("good", { tools: [PATTERN_TOOL] }),
        broken: { command: join(sandbox.root, "no-such-server") },
        stuck1: sandbox.misbehavingServer("stuck1", "hang-initialize", { timeoutMs: 2_000 }),
        stuck2: sandbox.misbehavingServer("stuck2", "hang-initialize", { timeoutMs: 2_000 }),
        everything: sandbox.everythingServer("everything"),
      },
    });

    const result = await sandbox.run(["mcp", "list", "--json"]);

    // Some server failed: the listing is complete, and the exit code says not all is well.
    expect(result.code).toBe(1);
    const { servers } = parseSingleJson(result.stdout) as { servers: ListedServer[] };
    expect(servers.map((server) => [server.name, server.status])).toEqual([
      ["good", "ready"],
      ["broken", "failed"],
      ["stuck1", "failed"],
      ["stuck2", "failed"],
      ["everything", "ready"],
    ]);
    for (const server of servers) {
      expect(Object.keys(server).sort()).toEqual(
        [
          "auth",
          "error",
          "isolation",
          "name",
          "package",
          "protocolEra",
          "protocolVersion",
          "rejected",
          "status",
          "tools",
          "trust",
        ].sort(),
      );
      // Only HTTP servers have an OAuth state; these are all stdio servers.
      expect(server.auth).toBeNull();
    }

    const good = servers[0] as ListedServer;
    expect(good.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(good.error).toBeNull();
    expect(good.tools).toContainEqual({
      name: "mcp__good__echo",
      remoteName: "echo",
      effect: "external",
      policy: "ask",
      description: "Returns its arguments.",
    });
    // A tool whose schema cannot be enforced locally is rejected visibly, not registered loosely.
    expect(good.tools.map((tool) => tool.remoteName)).not.toContain("pattern");
    expect(good.rejected).toEqual([
      { remoteName: "pattern", reason: expect.stringContaining("unsupported_input_schema") },
    ]);

    for (const failed of servers.filter((server) => server.status === "failed")) {
      expect(failed.protocolVersion).toBeNull();
      expect(failed.error).toEqual({
        code: expect.any(String),
        message: expect.any(String),
        stderr: expect.any(Array),
        sandbox: null,
      });
      expect(failed.tools).toEqual([]);
    }
    expect(servers[1]?.error?.message).toContain("no-such-server");

    const everything = servers[4] as ListedServer;
    expect(everything.tools.map((tool) => tool.name)).toContain("mcp__everything__echo");
    expect(everything.tools.every((tool) => tool.effect === "external")).toBe(true);

    // Concurrent: the second stuck server's handshake started before the first one's timed out.
    const failures = sandbox
      .auditEvents()
      .filter((event) => event.type === "mcp_initialize_failed")
      .map((event) => {
        const end = Date.parse(String(event.at));
        return { server: event.server, start: end - Number(event.durationMs), end };
      });
    const [first, second] = ["stuck1", "stuck2"].map((name) => failures.find((f) => f.server === name));
    expect(first && second).toBeTruthy();
    if (first && second) {
      expect(second.start).toBeLessThan(first.end);
      expect(first.start).toBeLessThan(second.end);
    }
    // Both stuck servers were actually asked to start: the era probe, server/discover, opens the
    // handshake phase (a server that answers nothing never gets to the initialize fallback).
    for (const name of ["stuck1", "stuck2"]) {
      expect(
        sandbox
          .records(name)
          .some((record) => record.event === "received" && record.method === "server/discover"),
      ).toBe(true);
    }
  });

  test("human output: aligned table with effect and policy decision, failures on their own line", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: {
        rules: [
          { tool: "mcp__files__echo", decision: "allow" },
          { tool: "mcp__files__env", decision: "deny", reason: "secrets" },
        ],
      },
      mcpServers: {
        files: sandbox.scriptableServer("files", {
          tools: [{ name: "a-tool-with-a-much-longer-name", description: "Long name." }, PATTERN_TOOL],
        }),
        broken: { command: join(sandbox.root, "no-such-server") },
      },
    });

    const result = await sandbox.run(["mcp", "list"]);

    expect(result.code).toBe(1);
    // Not a terminal: no color codes at all.
    expect(result.stdout).not.toContain("\u001b");
    const lines = result.stdout.split("\n");
    expect(lines).toContainEqual(
      expect.stringMatching(/^files {2}ready {2}protocol \S+ \(handshake\) {2}\d+ tools {2}untrusted$/),
    );
    const header = lines.find((line) => line.trim().startsWith("TOOL"));
    expect(header).toMatch(/^ {2}TOOL +EFFECT +POLICY +DESCRIPTION$/);
    const columns = ["EFFECT", "POLICY", "DESCRIPTION"].map((title) => header?.indexOf(title) ?? -1);
    const rows = lines.filter((line) => line.startsWith("  mcp__files__"));
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const row of rows) {
      const [effectAt, policyAt] = columns as [number, number, number];
      expect(row.slice(effectAt, effectAt + 8)).toBe("external");
      expect(row.slice(policyAt).split(" ")[0]).toMatch(/^(allow|ask|deny)$/);
    }
    const decisionOf = (tool: string) => {
      const row = rows.find((line) => line.startsWith(`  ${tool} `)) ?? "";
      return row.slice(columns[1]).split(" ")[0];
    };
    expect(decisionOf("mcp__files__echo")).toBe("allow");
    expect(decisionOf("mcp__files__env")).toBe("deny");
    expect(decisionOf("mcp__files__a-tool-with-a-much-longer-name")).toBe("ask");
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}rejected pattern: unsupported_input_schema/));
    expect(lines).toContainEqual(expect.stringMatching(/^broken {2}failed {2}\S/));
  });

  test("AGENT_CONFIG and AGENT_STATE_DIR locate the configuration and the state", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({ mcpServers: { solo: sandbox.scriptableServer("solo") } });
    const stateDir = join(sandbox.root, "state-from-env");

    const result = await sandbox.run(["mcp", "list", "--json"], {
      bare: true,
      cwd: sandbox.workspace,
      env: { AGENT_CONFIG: sandbox.configPath, AGENT_STATE_DIR: stateDir },
    });

    // A configuration found rather than passed with --config is named, on stderr only.
    expect(result.stderr).toBe(`agent: using ${sandbox.configPath} (AGENT_CONFIG)\n`);
    expect(result.code).toBe(0);
    const { servers } = parseSingleJson(result.stdout) as { servers: ListedServer[] };
    expect(servers.map((server) => server.status)).toEqual(["ready"]);
    expect(existsSync(join(stateDir, "audit.jsonl"))).toBe(true);
    expect(existsSync(join(sandbox.workspace, ".agent"))).toBe(false);
  });
});
