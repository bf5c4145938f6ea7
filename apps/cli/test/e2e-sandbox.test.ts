import { existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { escapeServerPath } from "@agent/mcp-testing/servers";
import { describe, expect } from "vitest";
import {
  BWRAP_AVAILABLE,
  E2E_TIMEOUT_MS,
  firstText,
  observationOf,
  parseSingleJson,
  e2eTest as test,
} from "./e2e-helpers.js";

interface Listed {
  name: string;
  status: string;
  isolation: string;
  error: { message: string } | null;
}

function escapeServer(sandbox: Record<string, unknown>): Record<string, unknown> {
  return { command: process.execPath, args: [escapeServerPath()], sandbox };
}

// These tests are about running where bubblewrap cannot.
const WITHOUT_BWRAP = { isolated: false };

describe.concurrent("the sandbox, end to end", () => {
  test.skipIf(!BWRAP_AVAILABLE)(
    "the test harness isolates by default: a server's calls run under bwrap",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      sandbox.writeConfig({
        policy: { rules: [{ tool: "mcp__s__*", decision: "allow" }] },
        mcpServers: { s: sandbox.scriptableServer("s") },
      });
      const call = await sandbox.run(["call", "mcp__s__echo", "--input", '{"message":"hi"}', "--json"]);
      expect(call.code, call.stderr).toBe(0);
      const decided = sandbox.auditEvents().filter((event) => event.type === "tool_call_decided");
      expect(decided).toContainEqual(
        expect.objectContaining({ toolName: "mcp__s__echo", isolation: "bwrap" }),
      );
      // From outside: the server ran in a pid namespace of its own.
      const started = sandbox.records("s").find((record) => record.event === "started");
      expect(started?.pidNamespace).toBeDefined();
      expect(started?.pidNamespace).not.toBe(readlinkSync("/proc/self/ns/pid"));
    },
  );

  test("fails closed: a required sandbox that cannot start spawns no server and says why", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { sandbox: "required" },
      mcpServers: { s: sandbox.scriptableServer("s") },
    });
    const listed = await sandbox.run(["mcp", "list", "--json"], WITHOUT_BWRAP);
    expect(listed.code).toBe(1);
    const [server] = (parseSingleJson(listed.stdout) as { servers: Listed[] }).servers;
    expect(server).toMatchObject({ name: "s", status: "failed", isolation: "none" });
    expect(server?.error?.message).toContain("AGENT_BWRAP");
    expect(server?.error?.message).toContain("apt-get install bubblewrap");

    const human = await sandbox.run(["mcp", "list"], WITHOUT_BWRAP);
    expect(human.stdout).toContain("not started: isolation is required");

    const call = await sandbox.run(
      ["call", "mcp__s__echo", "--input", '{"message":"hi"}', "--json"],
      WITHOUT_BWRAP,
    );
    expect(call.code).toBe(1);
    expect(call.stderr).toContain("sandbox is unavailable");
    // From outside: the server never started (it records "started" first thing).
    expect(existsSync(sandbox.recordFile("s"))).toBe(false);
    expect(sandbox.auditEvents().filter((event) => event.type === "sandbox_unavailable")).toContainEqual(
      expect.objectContaining({ subject: "mcp:s", required: true }),
    );
  });

  test("optional: runs unisolated where bubblewrap cannot, and says so in mcp list and the audit trail", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { sandbox: "optional" },
      mcpServers: { s: sandbox.scriptableServer("s") },
    });
    const listed = await sandbox.run(["mcp", "list", "--json"], WITHOUT_BWRAP);
    expect(listed.code).toBe(0);
    expect((parseSingleJson(listed.stdout) as { servers: Listed[] }).servers[0]?.isolation).toBe("none");
    const human = await sandbox.run(["mcp", "list"], WITHOUT_BWRAP);
    expect(human.stdout).toContain("NOT ISOLATED");
    const call = await sandbox.run(
      ["call", "mcp__s__echo", "--input", '{"message":"hi"}', "--json"],
      WITHOUT_BWRAP,
    );
    expect(call.code).toBe(3);
    expect(sandbox.auditEvents()).toContainEqual(
      expect.objectContaining({ type: "sandbox_unavailable", subject: "mcp:s", required: false }),
    );
  });

  test.skipIf(!BWRAP_AVAILABLE)(
    "isolated: a server granted the whole directory still cannot touch the config or the state",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      sandbox.writeConfig({
        policy: { sandbox: "required", rules: [{ tool: "mcp__jail__*", decision: "allow" }] },
        // ".." from the workspace: the directory that holds the config file and the state directory.
        mcpServers: { jail: escapeServer({ write: [".."] }) },
      });
      const configBefore = readFileSync(sandbox.configPath, "utf8");
      const listed = await sandbox.run(["mcp", "list", "--json"], { isolated: true });
      expect(listed.code).toBe(0);
      expect((parseSingleJson(listed.stdout) as { servers: Listed[] }).servers[0]?.isolation).toBe("bwrap");

      const attempts = [
        { path: sandbox.configPath, content: '{"policy":{"rules":[{"tool":"*","decision":"allow"}]}}' },
        { path: join(sandbox.stateDir, "audit.jsonl"), content: "forged\n" },
        { path: join(sandbox.stateDir, "state.db"), content: "x" },
      ];
      for (const input of attempts) {
        const result = await sandbox.run(
          ["call", "mcp__jail__write", "--input", JSON.stringify(input), "--json"],
          {
            isolated: true,
          },
        );
        expect(JSON.parse(firstText(observationOf(result.stdout)))).toMatchObject({ ok: false });
      }
      const allowed = await sandbox.run(
        [
          "call",
          "mcp__jail__write",
          "--input",
          JSON.stringify({ path: join(sandbox.workspace, "ok.txt"), content: "ok" }),
          "--json",
        ],
        { isolated: true },
      );
      expect(JSON.parse(firstText(observationOf(allowed.stdout)))).toEqual({ ok: true });
      expect(readFileSync(join(sandbox.workspace, "ok.txt"), "utf8")).toBe("ok");
      // From outside: the config is unchanged, the audit trail and database are the agent's own.
      expect(readFileSync(sandbox.configPath, "utf8")).toBe(configBefore);
      expect(readFileSync(join(sandbox.stateDir, "audit.jsonl"), "utf8")).not.toContain("forged");
      const decided = sandbox.auditEvents().filter((event) => event.type === "tool_call_decided");
      expect(decided.length).toBeGreaterThan(0);
      expect(decided.every((event) => event.isolation === "bwrap")).toBe(true);
    },
  );

  test.skipIf(!BWRAP_AVAILABLE)(
    "a file in $HOME named in a server's args grants that file, never the home: ~/.ssh/id_rsa stays unreadable",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      const home = join(sandbox.root, "home");
      mkdirSync(join(home, ".ssh"), { recursive: true });
      const key = join(home, ".ssh", "id_rsa");
      writeFileSync(key, "-----BEGIN OPENSSH PRIVATE KEY----- planted");
      const envFile = join(home, ".server.env");
      writeFileSync(envFile, "TOKEN=for-the-server");
      sandbox.writeConfig({
        policy: { sandbox: "required", rules: [{ tool: "mcp__jail__*", decision: "allow" }] },
        mcpServers: {
          jail: {
            command: process.execPath,
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the config names the file as users write it.
            args: [escapeServerPath(), "--env-file", "${HOME}/.server.env"],
          },
        },
      });
      const read = async (path: string) => {
        const result = await sandbox.run(
          ["call", "mcp__jail__read", "--input", JSON.stringify({ path }), "--json"],
          {
            isolated: true,
            env: { HOME: home },
          },
        );
        expect(result.code, result.stderr).toBe(0);
        return firstText(observationOf(result.stdout));
      };
      const stolen = await read(key);
      expect(JSON.parse(stolen)).toMatchObject({ ok: false });
      expect(stolen).not.toContain("PRIVATE KEY");
      expect(JSON.parse(await read(envFile))).toEqual({ ok: true, content: "TOKEN=for-the-server" });
    },
  );
});
