import { randomBytes } from "node:crypto";
import { hostname, userInfo } from "node:os";
import { join } from "node:path";
import { openPostgresState } from "@agent/store-postgres";
import { useThrowawayClusterPerFile } from "@agent/store-postgres/testing";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type AgentResult, E2E_TIMEOUT_MS, type E2eSandbox, e2eTest, waitFor } from "./e2e-helpers.js";

// One throwaway PostgreSQL server for this file (these tests restart it); each test gets a database.
const cluster = useThrowawayClusterPerFile({ beforeAll, afterAll });
let databases = 0;

function freshDatabase(): Promise<string> {
  databases += 1;
  return cluster().createDatabase(`cli_${process.pid}_${databases}`);
}

/**
 * A team of two machines: one configuration (servers, policy) and one database, two state
 * directories. The URL reaches the CLI only through a variable, as a team would configure it.
 */
async function team(sandbox: E2eSandbox) {
  const url = await freshDatabase();
  sandbox.writeConfig({
    state: {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference the CLI expands.
      url: "${AGENT_STATE_URL}",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the team's shared key, never in the database.
      identityKey: "${AGENT_IDENTITY_KEY}",
    },
    mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
  });
  const env = { AGENT_STATE_URL: url, AGENT_IDENTITY_KEY: randomBytes(32).toString("hex") };
  const argv = (machine: "a" | "b", args: string[]) => [
    "--config",
    sandbox.configPath,
    "--state-dir",
    join(sandbox.root, `state-${machine}`),
    ...args,
  ];
  const on = (machine: "a" | "b") => (args: string[]) =>
    sandbox.run(argv(machine, args), { bare: true, env });
  const start = (machine: "a" | "b", args: string[]) =>
    sandbox.start(argv(machine, args), { bare: true, env });
  const password = decodeURIComponent(new URL(url).password);
  const noSecret = (result: AgentResult) => {
    expect(result.stdout + result.stderr).not.toContain(password);
    return result;
  };
  return {
    url,
    a: on("a"),
    b: on("b"),
    start,
    noSecret,
    executions: () => sandbox.received("s", "tools/call").length,
  };
}

describe("a team on one PostgreSQL state", () => {
  e2eTest(
    "a call held on machine A is listed and approved on machine B, then resumes on A, once",
    async ({ sandbox }) => {
      const { url, a, b, noSecret, executions } = await team(sandbox);
      const held = noSecret(await a(["call", "mcp__s__echo", "--input", '{"message":"hi"}', "--json"]));
      expect(held.code, held.stderr).toBe(3);
      const { runId, requestId } = JSON.parse(held.stdout) as { runId: string; requestId: string };

      const listed = noSecret(await b(["approvals", "list", "--json"]));
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as { approvals: unknown[] }).approvals).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: requestId, runId, status: "pending" })]),
      );
      // The human list says which machine the call waits on.
      const table = noSecret(await b(["approvals", "list"]));
      expect(table.stdout).toMatch(/HOST/);
      expect(table.stdout).toContain(hostname());
      expect(noSecret(await b(["approvals", "approve", requestId])).code).toBe(0);
      const decided = JSON.parse((await a(["approvals", "show", requestId, "--json"])).stdout) as Record<
        string,
        unknown
      >;
      expect(JSON.stringify(decided)).toContain(userInfo().username);

      const resumed = noSecret(await a(["resume", runId, "--json"]));
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(executions()).toBe(1);
      // The shared trail has the whole story, read from either machine.
      const audit = noSecret(await b(["audit", "--json"]));
      const types = audit.stdout
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as { type: string }).type);
      expect(types).toEqual(
        expect.arrayContaining(["approval_requested", "approval_granted", "approval_consumed"]),
      );
      // The key of server identities never reached the database, which every role of the team reads.
      const settings = await openPostgresState({ url });
      try {
        const rows = await settings.pool.query(
          "SELECT row_to_json(s)::text AS row FROM agent_cli_settings s",
        );
        expect(rows.rows).toEqual([]);
      } finally {
        await settings.close();
      }
    },
    E2E_TIMEOUT_MS * 2,
  );

  e2eTest(
    "eight resumes of one approved run on two machines execute the call once",
    async ({ sandbox }) => {
      const { a, b, executions } = await team(sandbox);
      const held = await a(["call", "mcp__s__echo", "--input", '{"message":"once"}', "--json"]);
      const { runId, requestId } = JSON.parse(held.stdout) as { runId: string; requestId: string };
      expect((await b(["approvals", "approve", requestId])).code).toBe(0);

      const results = await Promise.all(
        Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? a : b)(["resume", runId, "--json"])),
      );
      const codes = results.map((result) => result.code);
      expect(
        codes.filter((code) => code === 0),
        JSON.stringify(codes),
      ).toHaveLength(1);
      // The others were refused (the run was claimed, or completed): usage errors, nothing ran.
      expect(codes.filter((code) => code !== 0).every((code) => code === 2)).toBe(true);
      expect(executions()).toBe(1);
    },
    E2E_TIMEOUT_MS * 3,
  );

  e2eTest(
    "a database down fails the command clearly and loses nothing; a restart mid-call loses nothing either",
    async ({ sandbox }) => {
      const { a, b, start, noSecret, executions } = await team(sandbox);
      const held = await a(["call", "mcp__s__slow", "--input", '{"maxMs":1500}', "--json"]);
      const { runId, requestId } = JSON.parse(held.stdout) as { runId: string; requestId: string };

      await cluster().restart(async () => {
        const refused = noSecret(await b(["approvals", "approve", requestId]));
        expect(refused.code).toBe(2);
        expect(refused.stderr).toMatch(/store_unavailable/);
      });
      // Nothing was lost: the request is still pending, and can be approved now.
      expect(noSecret(await b(["approvals", "approve", requestId])).code).toBe(0);

      // The database restarts while the approved call runs: its outcome is recorded all the same.
      const resuming = start("a", ["resume", runId, "--json"]);
      await waitFor("the approved call to reach the server", () => executions() === 1);
      await cluster().restart();
      const resumed = noSecret(await resuming.exited);
      expect(resumed.code, resumed.stderr).toBe(0);
      const shown = JSON.parse((await b(["runs", "show", runId, "--json"])).stdout) as { status?: string };
      expect(JSON.stringify(shown)).toMatch(/"completed"/);
      // And it cannot run again.
      expect((await b(["resume", runId, "--json"])).code).toBe(2);
      expect(executions()).toBe(1);
    },
    E2E_TIMEOUT_MS * 3,
  );
});
