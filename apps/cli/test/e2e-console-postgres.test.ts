import { userInfo } from "node:os";
import { openPostgresState } from "@agent/store-postgres";
import { useThrowawayClusterPerFile } from "@agent/store-postgres/testing";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { consoleSession, type ServedConsole, serveConsole, stopConsole } from "./e2e-console-helpers.js";
import { E2E_TIMEOUT_MS, e2eTest, parseSingleJson } from "./e2e-helpers.js";
import { createPostgresTeam, type TeamMachine } from "./e2e-postgres-team.js";

// The console's API (no browser) on the team's PostgreSQL store, as the README's approver role with
// the approver's signing key: the same records, the same exactly-once decision as the shells'.

const cluster = useThrowawayClusterPerFile({ beforeAll, afterAll });

const user = userInfo().username;

function serveOn(
  sandbox: Parameters<typeof createPostgresTeam>[1],
  machine: TeamMachine,
): Promise<ServedConsole> {
  return serveConsole(sandbox, { env: machine.env, globalArgs: machine.globalArgs });
}

type Approval = Record<string, unknown>;

// The key a decision was signed with, read from the table by its owner.
async function decisionKeyOf(ownerUrl: string, requestId: string): Promise<unknown> {
  const state = await openPostgresState({ url: ownerUrl });
  try {
    const { rows } = await state.pool.query("SELECT decision_key FROM agent_approvals WHERE id = $1", [
      requestId,
    ]);
    return rows[0]?.decision_key;
  } finally {
    await state.close();
  }
}

describe("the console on the team's PostgreSQL store", () => {
  e2eTest(
    "a grant taken in the console is the record the shells see, signed as the approver, and runs the call once",
    async ({ sandbox }) => {
      const { agent, approver, approverMachine, executions, ownerUrl } = await createPostgresTeam(
        cluster(),
        sandbox,
      );
      const held = await agent([
        "call",
        "mcp__s__echo",
        "--input",
        '{"message":"from the console"}',
        "--json",
      ]);
      expect(held.code, held.stderr).toBe(3);
      const { runId, requestId } = parseSingleJson(held.stdout) as { runId: string; requestId: string };
      const served = await serveOn(sandbox, approverMachine("console"));
      let decided: Approval;
      try {
        const session = await consoleSession(served);
        const queue = (await (await session.get("/api/approvals")).json()) as {
          approvals: Array<{ approval: Approval }>;
        };
        expect(queue.approvals.map(({ approval }) => approval.id)).toContain(requestId);
        const answer = await session.post(`/api/approvals/${requestId}/approve`);
        expect(answer.status).toBe(200);
        decided = ((await answer.json()) as { approval: Approval }).approval;
      } finally {
        await stopConsole(served);
      }
      expect(decided).toMatchObject({ id: requestId, status: "granted", decidedBy: `console:${user}` });
      // Both machines' shells read that very record: same decider, same moment.
      for (const shell of [approver, agent]) {
        const shown = await shell(["approvals", "show", requestId, "--json"]);
        expect(shown.code, shown.stderr).toBe(0);
        expect(parseSingleJson(shown.stdout).approval).toMatchObject({
          id: requestId,
          status: "granted",
          decidedBy: decided.decidedBy,
          decidedAt: decided.decidedAt,
        });
      }
      // Signed with the approver machine's key, as a shell's grant there would be.
      expect(await decisionKeyOf(ownerUrl, requestId)).toBe("alice");
      // The agents run only grants signed by a trusted approver key: this one runs, once.
      const resumed = await agent(["resume", runId, "--json"]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(executions()).toBe(1);
    },
    E2E_TIMEOUT_MS * 3,
  );

  e2eTest(
    "two consoles and a shell racing for one request: one decision, and the late ones are told who won",
    async ({ sandbox }) => {
      const { agent, approver, approverMachine, executions } = await createPostgresTeam(cluster(), sandbox);
      const held = await agent(["call", "mcp__s__echo", "--input", '{"message":"raced"}', "--json"]);
      expect(held.code, held.stderr).toBe(3);
      const { runId, requestId } = parseSingleJson(held.stdout) as { runId: string; requestId: string };
      // Two approver machines serving consoles, each with a session.
      const consoles = [
        await serveOn(sandbox, approverMachine("console-a")),
        await serveOn(sandbox, approverMachine("console-b")),
      ];
      try {
        const [first, second] = await Promise.all(consoles.map(consoleSession));
        if (!first || !second) throw new Error("two sessions");
        // Each contender is told apart by what it decides and as whom: the first console grants,
        // the second denies (both as console:<user>), the shell grants as <user>.
        const [approved, denied, shell] = await Promise.all([
          first.post(`/api/approvals/${requestId}/approve`),
          second.post(`/api/approvals/${requestId}/deny`, { reason: "raced" }),
          approver(["approvals", "approve", requestId]),
        ]);
        const answers = [approved, denied];
        const won = [...answers.map((answer) => answer.status === 200), shell.code === 0];
        expect(won.filter(Boolean)).toHaveLength(1);
        const record = parseSingleJson((await approver(["approvals", "show", requestId, "--json"])).stdout)
          .approval as Approval;
        const winner = [
          { status: "granted", decidedBy: `console:${user}` },
          { status: "denied", decidedBy: `console:${user}` },
          { status: "granted", decidedBy: user },
        ][won.indexOf(true)];
        expect(record).toMatchObject(winner as Approval);
        // A late console is answered 409 with the record that won.
        for (const answer of answers.filter((answer) => answer.status !== 200)) {
          expect(answer.status).toBe(409);
          const body = (await answer.json()) as {
            error: { code: string; message: string; approval: Approval };
          };
          expect(body.error.code).toBe("already_decided");
          expect(body.error.message).toContain(String(record.decidedBy));
          expect(body.error.approval).toMatchObject({ status: record.status, decidedAt: record.decidedAt });
        }
        // A late shell is told the request is no longer pending, what it became and who decided it.
        if (shell.code !== 0) {
          expect(shell.code).toBe(2);
          expect(shell.stderr).toContain("[approval_not_pending]");
          expect(shell.stderr).toContain(
            `was already ${String(record.status)} by ${String(record.decidedBy)} at ${String(record.decidedAt)}`,
          );
        }
      } finally {
        for (const served of consoles) await stopConsole(served);
      }
      // Whoever won, the call runs at most once, and only if it was granted; a denial is reported.
      const record = parseSingleJson((await agent(["approvals", "show", requestId, "--json"])).stdout)
        .approval as Approval;
      const granted = record.status === "granted";
      const resumed = await agent(["resume", runId, "--json"]);
      expect(resumed.code, resumed.stderr).toBe(granted ? 0 : 1);
      if (!granted) expect(resumed.stdout).toContain("policy_denied");
      expect(executions()).toBe(granted ? 1 : 0);
    },
    E2E_TIMEOUT_MS * 4,
  );
});
