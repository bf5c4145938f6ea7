import { readFileSync } from "node:fs";
import { sampleApprovalRequest } from "@agent/policy/testing";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  type OpenPostgresStateOptions,
  openPostgresState,
  type PostgresState,
  postgresTeamGrants,
  UNSIGNED_GRANT_REASON,
} from "../src/index.js";
import { createEd25519Signer, createEd25519Verifier, generateEd25519KeyPair } from "../src/keys/index.js";
import { POSTGRES_MIGRATIONS } from "../src/migrations.js";
import { createTeamRoles, createTestDatabase, migrateOnlyTo } from "./databases.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DIGEST = "a".repeat(64);
const alice = generateEd25519KeyPair();
const approvers = createEd25519Verifier({ alice: alice.publicKey });

async function open(options: OpenPostgresStateOptions): Promise<PostgresState> {
  const state = await openPostgresState(options);
  cleanups.push(() => state.close());
  return state;
}

/** Every approval row as the owner reads it, oldest first. */
async function rowsOf(owner: PostgresState): Promise<unknown[]> {
  return (await owner.pool.query("SELECT * FROM agent_approvals ORDER BY seq")).rows;
}

/** A migrated database with an agent and an approver role granted as the README says, and each's stores. */
async function team(madeBefore?: (databaseUrl: string) => Promise<void>) {
  const serverUrl = inject("postgresUrl");
  const database = await createTestDatabase(serverUrl);
  cleanups.push(() => database.drop());
  await madeBefore?.(database.url);
  const owner = await open({ url: database.url });
  const roles = await createTeamRoles(serverUrl, database.url, postgresTeamGrants);
  // Runs after the database is dropped (cleanups run in reverse): the roles then own nothing.
  cleanups.unshift(() => roles.drop());
  const agent = await open({ url: roles.agentUrl, host: "ci-7", trustedApprovers: approvers });
  const approver = await open({
    url: roles.approverUrl,
    decidedBy: "alice",
    signer: createEd25519Signer("alice", alice.privateKeyPem),
  });
  return { owner, agent, approver };
}

describe("an agent role and an approver role on one database", () => {
  it("opens the migrated database as either role, with no CREATE on public (PostgreSQL 15)", async () => {
    const { agent, approver } = await team();
    await agent.approvals.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    expect((await approver.approvals.listApprovals()).map((record) => record.id)).toEqual(["apr_1"]);
  });

  it("lets an agent role grant by no statement: the request stays pending and nothing is consumable", async () => {
    const { agent } = await team();
    await agent.approvals.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    await expect(agent.approvals.grantApproval("apr_1")).rejects.toMatchObject({
      code: "store_permission_denied",
    });
    await expect(
      agent.pool.query(
        "UPDATE agent_approvals SET status = 'granted', decided_by = 'alice' WHERE id = 'apr_1'",
      ),
    ).rejects.toThrow(/permission denied/);
    await expect(
      agent.pool.query(
        `INSERT INTO agent_approvals (id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint,
           summary, input_preview, status, created_at)
         VALUES ('apr_2', 'run_1', 'c', 't', 'write', '${DIGEST}', 'f', 's', '{}', 'granted', '2030-01-01')`,
      ),
    ).rejects.toThrow(/permission denied/);
    // The consuming function consumes grants only; a pending request is not one.
    const consumed = await agent.pool.query(
      "SELECT agent_consume_approval('apr_1', NULL, 'now') AS consumed",
    );
    expect(consumed.rows[0]).toEqual({ consumed: false });
    expect(await agent.approvals.consumeApprovalGrant("run_1", DIGEST)).toBe(false);
    expect((await agent.approvals.getApproval("apr_1"))?.status).toBe("pending");
  });

  it("consumes, once, a grant the approver signed; the approver role cannot consume or void", async () => {
    const { agent, approver } = await team();
    await agent.approvals.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    expect(await approver.approvals.grantApproval("apr_1")).toMatchObject({
      status: "granted",
      decidedBy: "alice",
    });
    await expect(approver.approvals.consumeApprovalGrant("run_1", DIGEST)).rejects.toMatchObject({
      code: "store_permission_denied",
    });
    await expect(approver.approvals.voidApproval("apr_1", "x")).rejects.toMatchObject({
      code: "store_permission_denied",
    });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => agent.approvals.consumeApprovalGrant("run_1", DIGEST)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await agent.approvals.getApproval("apr_1"))?.status).toBe("consumed");
    // The approver role may write decision columns, but cannot revive the spent grant for a replay.
    await expect(
      approver.pool.query("UPDATE agent_approvals SET status = 'granted' WHERE id = 'apr_1'"),
    ).rejects.toThrow(/a consumed request cannot become granted/);
    expect(await agent.approvals.consumeApprovalGrant("run_1", DIGEST)).toBe(false);
  });

  it("lets the approver role decide a pending request and do nothing else by any statement", async () => {
    const { owner, agent, approver } = await team();
    for (const id of ["apr_granted", "apr_consumed", "apr_pending"]) {
      await agent.approvals.saveApprovalRequest(sampleApprovalRequest(id, { runId: `run_${id}` }));
    }
    await approver.approvals.grantApproval("apr_granted");
    await approver.approvals.grantApproval("apr_consumed");
    expect(await agent.approvals.consumeApprovalGrant("run_apr_consumed", DIGEST)).toBe(true);
    const rowsBefore = await rowsOf(owner);

    const refused: Array<[string, RegExp]> = [
      // Spending or cancelling someone's grant is the agent's functions' job, not an operator's UPDATE.
      [
        "UPDATE agent_approvals SET status = 'consumed' WHERE id = 'apr_granted'",
        /only the store's own functions make a request consumed/,
      ],
      [
        "UPDATE agent_approvals SET status = 'voided' WHERE id = 'apr_granted'",
        /only the store's own functions make a request voided/,
      ],
      [
        "UPDATE agent_approvals SET status = 'voided' WHERE id = 'apr_pending'",
        /only the store's own functions make a request voided/,
      ],
      // Who decided, with which key, stays as it was signed.
      [
        "UPDATE agent_approvals SET decided_by = 'mallory', decision_key = 'mallory' WHERE id = 'apr_consumed'",
        /the decision of a consumed request cannot change/,
      ],
      [
        "UPDATE agent_approvals SET decided_by = 'mallory' WHERE id = 'apr_granted'",
        /the decision of a granted request cannot change/,
      ],
      [
        "UPDATE agent_approvals SET decided_by = 'mallory' WHERE id = 'apr_pending'",
        /a pending request carries no decision/,
      ],
    ];
    for (const [statement, reason] of refused) {
      await expect(approver.pool.query(statement), statement).rejects.toThrow(reason);
    }
    expect(await rowsOf(owner)).toEqual(rowsBefore);
    // Deciding the pending request still works, and the agent still voids and consumes.
    expect(await approver.approvals.denyApproval("apr_pending")).toMatchObject({ status: "denied" });
    expect(await agent.approvals.voidApproval("apr_granted", "tool changed")).toMatchObject({
      status: "voided",
    });
  });

  it("holds the approver role to that on a database the previous release made (version 7)", async () => {
    const { owner, approver } = await team((databaseUrl) =>
      migrateOnlyTo(
        databaseUrl,
        7,
        `INSERT INTO agent_approvals (id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint,
           summary, input_preview, status, created_at, decided_by, decided_at)
         VALUES ('apr_old', 'run_1', 'call_1', 'write_file', 'write', '${DIGEST}', 'f', 's', '{}', 'granted',
           '2030-01-01T00:00:00.000Z', 'alice', '2030-01-01T00:00:01.000Z')`,
      ),
    );
    const versions = await owner.pool.query(
      "SELECT max(version)::int AS version FROM agent_schema_migrations WHERE component = 'store-postgres'",
    );
    expect(versions.rows[0]).toEqual({ version: POSTGRES_MIGRATIONS.at(-1)?.version });
    await expect(
      approver.pool.query("UPDATE agent_approvals SET status = 'voided' WHERE id = 'apr_old'"),
    ).rejects.toThrow(/only the store's own functions make a request voided/);
    expect(await owner.approvals.getApproval("apr_old")).toMatchObject({
      status: "granted",
      decidedBy: "alice",
    });
  });

  it("voids, never consumes, a grant the table's owner forged, even with a signature copied from a real one", async () => {
    const { owner, agent, approver } = await team();
    await agent.approvals.saveApprovalRequest(sampleApprovalRequest("apr_real", { runId: "run_real" }));
    await approver.approvals.grantApproval("apr_real");
    await agent.approvals.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    await agent.approvals.saveApprovalRequest(sampleApprovalRequest("apr_2", { runId: "run_2" }));
    // Unsigned, as the owner (or anyone with UPDATE) would write it.
    await owner.pool.query(
      "UPDATE agent_approvals SET status = 'granted', decided_by = 'alice', decided_at = '2030-01-01' WHERE id = 'apr_1'",
    );
    // The real grant's key, signature and time, copied onto another request.
    await owner.pool.query(
      `UPDATE agent_approvals AS forged SET status = 'granted', decided_by = real.decided_by,
         decided_at = real.decided_at, decision_key = real.decision_key, decision_signature = real.decision_signature
       FROM agent_approvals AS real WHERE real.id = 'apr_real' AND forged.id = 'apr_2'`,
    );
    expect(await agent.approvals.consumeApprovalGrant("run_1", DIGEST)).toBe(false);
    expect(await agent.approvals.consumeApprovalGrant("run_2", DIGEST)).toBe(false);
    for (const id of ["apr_1", "apr_2"]) {
      expect(await agent.approvals.getApproval(id)).toMatchObject({
        status: "voided",
        voidReason: UNSIGNED_GRANT_REASON,
      });
    }
    // The real one still works, for its own run and action only.
    expect(await agent.approvals.consumeApprovalGrant("run_real", DIGEST)).toBe(true);
  });

  it("refuses a key that is not an Ed25519 key, saying how to print the right one", () => {
    expect(() => createEd25519Verifier({ bob: "not a key" })).toThrow(/openssl pkey/);
    expect(() =>
      createEd25519Signer("bob", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"),
    ).toThrow(expect.objectContaining({ code: "store_invalid_key" }));
  });
});

it("documents exactly the grants postgresTeamGrants returns", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const grants = postgresTeamGrants({ agent: "agent_harness", approver: "agent_approver" }).split("\n");
  for (const line of grants.filter((text) => !text.startsWith("--"))) expect(readme).toContain(line);
});
