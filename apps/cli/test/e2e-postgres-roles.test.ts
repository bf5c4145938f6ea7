import { openPostgresState } from "@agent/store-postgres";
import { useThrowawayClusterPerFile } from "@agent/store-postgres/testing";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, type E2eSandbox, e2eTest } from "./e2e-helpers.js";
import { createPostgresTeam } from "./e2e-postgres-team.js";

const cluster = useThrowawayClusterPerFile({ beforeAll, afterAll });

const team = (sandbox: E2eSandbox) => createPostgresTeam(cluster(), sandbox);

// One statement on a migrated database as the role of `url` (roles go with this file's cluster).
async function query(url: string, sql: string): Promise<void> {
  const state = await openPostgresState({ url });
  try {
    await state.pool.query(sql);
  } finally {
    await state.close();
  }
}

describe("the CLI as a least-privilege agent role, with a separate approver role", () => {
  e2eTest(
    "holds a call; the agent cannot grant it, by command or by SQL; the approver's signed grant runs it once",
    async ({ sandbox }) => {
      const { agent, agentWithKey, approver, agentUrl, executions } = await team(sandbox);
      const held = await agent(["call", "mcp__s__echo", "--input", '{"message":"hi"}', "--json"]);
      expect(held.code, held.stderr).toBe(3);
      const { runId, requestId } = JSON.parse(held.stdout) as { runId: string; requestId: string };

      // The agent machine has no approver key: the CLI refuses, saying what to do.
      const selfApproved = await agent(["approvals", "approve", requestId]);
      expect(selfApproved.code).toBe(2);
      expect(selfApproved.stderr).toMatch(/state\.signingKey.*\[state_unsigned_grant\]/s);
      // Even handed the approver's key, the agent role cannot record the decision.
      const withKey = await agentWithKey(["approvals", "approve", requestId]);
      expect(withKey.code).toBe(2);
      expect(withKey.stderr).toMatch(/permission denied.*\[store_permission_denied\]/s);
      // Nor can its role write a decision into the table, whatever it sends.
      await expect(
        query(
          agentUrl,
          `UPDATE agent_approvals SET status = 'granted', decided_by = 'alice' WHERE id = '${requestId}'`,
        ),
      ).rejects.toThrow(/permission denied/);
      const stillHeld = await agent(["resume", runId, "--json"]);
      expect(stillHeld.code, stillHeld.stderr).toBe(3);
      expect(executions()).toBe(0);

      const approved = await approver(["approvals", "approve", requestId]);
      expect(approved.code, approved.stderr).toBe(0);
      const resumed = await agent(["resume", runId, "--json"]);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(executions()).toBe(1);
      expect((await agent(["resume", runId, "--json"])).code).toBe(2);
      expect(executions()).toBe(1);
    },
    E2E_TIMEOUT_MS * 3,
  );

  e2eTest(
    "does not run a grant the database's owner wrote into the table: it voids it, and the call stays held",
    async ({ sandbox }) => {
      const { agent, ownerUrl, executions } = await team(sandbox);
      const held = await agent(["call", "mcp__s__echo", "--input", '{"message":"forged"}', "--json"]);
      const { runId, requestId } = JSON.parse(held.stdout) as { runId: string; requestId: string };
      await query(
        ownerUrl,
        `UPDATE agent_approvals SET status = 'granted', decided_by = 'alice', decided_at = '2030-01-01T00:00:00.000Z',
           decision_key = 'alice', decision_signature = 'AAAA' WHERE id = '${requestId}'`,
      );
      const resumed = await agent(["resume", runId, "--json"]);
      expect(resumed.code, resumed.stderr).not.toBe(0);
      expect(executions()).toBe(0);
      const shown = JSON.parse((await agent(["approvals", "show", requestId, "--json"])).stdout) as Record<
        string,
        unknown
      >;
      expect(JSON.stringify(shown)).toMatch(/"voided".*decision_signature_invalid/s);
    },
    E2E_TIMEOUT_MS * 2,
  );
});

describe("the shared audit trail, signed by each machine and checked against its checkpoint", () => {
  e2eTest(
    "verifies an untouched trail, and rejects a forged append and a truncated tail",
    async ({ sandbox }) => {
      const { agent, approver, ownerUrl } = await team(sandbox);
      const held = await agent(["call", "mcp__s__echo", "--input", '{"message":"audited"}', "--json"]);
      const { runId, requestId } = JSON.parse(held.stdout) as { runId: string; requestId: string };
      expect((await approver(["approvals", "approve", requestId])).code).toBe(0);
      expect((await agent(["resume", runId, "--json"])).code).toBe(0);
      const intact = await agent(["audit", "--verify"]);
      expect(intact.code, intact.stderr).toBe(0);
      expect(intact.stdout).toMatch(
        /intact: \d+ rows, each signed by a trusted writer, this machine's checkpoint present/,
      );

      // The owner appends a row that follows the chain (its hash computed as the writers do), as
      // anyone with INSERT could.
      await query(
        ownerUrl,
        `INSERT INTO agent_audit (at, type, record, prev_hash, hash)
         SELECT 'x', 'x', '{}', hash, encode(sha256(convert_to(hash || E'\\n' || '{}', 'UTF8')), 'hex')
         FROM agent_audit ORDER BY seq DESC LIMIT 1`,
      );
      const forged = await agent(["audit", "--verify", "--json"]);
      expect(forged.code).toBe(1);
      expect(JSON.parse(forged.stdout)).toMatchObject({
        ok: false,
        reason: expect.stringMatching(/no trusted writer/),
      });
      // It removes that row and the tail before it: what is left is consistent and signed.
      await query(
        ownerUrl,
        `ALTER TABLE agent_audit DISABLE TRIGGER USER;
         DELETE FROM agent_audit WHERE seq > (SELECT MAX(seq) - 3 FROM agent_audit)`,
      );
      const truncated = await agent(["audit", "--verify"]);
      expect(truncated.code).toBe(1);
      expect(truncated.stdout).toMatch(/tail was removed/);
    },
    E2E_TIMEOUT_MS * 3,
  );
});
