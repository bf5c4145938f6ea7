import { APPROVAL_STORE_CONTRACT, sampleApprovalRequest } from "@agent/policy/testing";
import { afterEach, describe, expect, inject, it } from "vitest";
import { openPostgresState, type PostgresState } from "../src/index.js";
import { POSTGRES_MIGRATIONS } from "../src/migrations.js";
import { createTestDatabase, migrateOnlyTo } from "./databases.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshState(options: { now?: () => Date; host?: string; decidedBy?: string } = {}): Promise<{
  state: PostgresState;
  url: string;
}> {
  const database = await createTestDatabase(inject("postgresUrl"));
  cleanups.push(() => database.drop());
  const state = await openPostgresState({ url: database.url, ...options });
  cleanups.push(() => state.close());
  return { state, url: database.url };
}

describe("PostgresApprovalStore: the ApprovalStore contract", () => {
  for (const scenario of APPROVAL_STORE_CONTRACT) {
    it(scenario.name, () => scenario.run(async (now) => (await freshState({ now })).state.approvals));
  }
});

describe("PostgresApprovalStore across connections", () => {
  it("applies migrations once when many processes open the same database at once", async () => {
    const { url } = await freshState();
    const states = await Promise.all(Array.from({ length: 6 }, () => openPostgresState({ url })));
    try {
      const versions = await states[0]?.pool.query(
        "SELECT version FROM agent_schema_migrations WHERE component = 'store-postgres' ORDER BY version",
      );
      expect(versions?.rows).toEqual(POSTGRES_MIGRATIONS.map(({ version }) => ({ version })));
    } finally {
      await Promise.all(states.map((state) => state.close()));
    }
  });

  it("gives a grant to exactly one of two stores on separate pools, and records who decided", async () => {
    const { state: first, url } = await freshState({ host: "machine-a", decidedBy: "alice" });
    const second = await openPostgresState({ url, host: "machine-b", decidedBy: "bob" });
    try {
      await first.approvals.saveApprovalRequest(sampleApprovalRequest("apr_1"));
      await second.approvals.grantApproval("apr_1");
      const results = await Promise.all([
        ...Array.from({ length: 20 }, () => first.approvals.consumeApprovalGrant("run_1", "a".repeat(64))),
        ...Array.from({ length: 20 }, () => second.approvals.consumeApprovalGrant("run_1", "a".repeat(64))),
      ]);
      expect(results.filter(Boolean)).toHaveLength(1);
      const row = await first.pool.query(
        "SELECT requested_on_host, decided_by FROM agent_approvals WHERE id = 'apr_1'",
      );
      expect(row.rows[0]).toEqual({ requested_on_host: "machine-a", decided_by: "bob" });
    } finally {
      await second.close();
    }
  });

  it("voiding keeps who granted a request, and records who voided a pending one", async () => {
    const { state: first, url } = await freshState({ decidedBy: "alice" });
    const second = await openPostgresState({ url, decidedBy: "bob" });
    try {
      await first.approvals.saveApprovalRequest(sampleApprovalRequest("apr_1"));
      await first.approvals.saveApprovalRequest(sampleApprovalRequest("apr_2", { runId: "run_2" }));
      await first.approvals.grantApproval("apr_1");
      expect(await second.approvals.voidApproval("apr_1", "changed")).toMatchObject({ decidedBy: "alice" });
      expect(await second.approvals.voidApproval("apr_2", "changed")).toMatchObject({ decidedBy: "bob" });
    } finally {
      await second.close();
    }
  });

  it("leaves one decision when an approve and a deny race", async () => {
    const { state: first, url } = await freshState();
    const second = await openPostgresState({ url });
    try {
      for (let round = 0; round < 10; round += 1) {
        const id = `apr_${round}`;
        await first.approvals.saveApprovalRequest(sampleApprovalRequest(id, { runId: `run_${round}` }));
        const outcomes = await Promise.allSettled([
          first.approvals.grantApproval(id),
          second.approvals.denyApproval(id),
        ]);
        expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
        const rejected = outcomes.find((outcome) => outcome.status === "rejected");
        expect((rejected as PromiseRejectedResult).reason).toMatchObject({ code: "approval_not_pending" });
        const winner = (
          outcomes.find((outcome) => outcome.status === "fulfilled") as PromiseFulfilledResult<{
            status: string;
          }>
        ).value;
        expect((await first.approvals.getApproval(id))?.status).toBe(winner.status);
      }
    } finally {
      await second.close();
    }
  });

  it("records the approvals of a version 4 schema as digested under version 1, and keeps new versions", async () => {
    const database = await createTestDatabase(inject("postgresUrl"));
    cleanups.push(() => database.drop());
    await migrateOnlyTo(
      database.url,
      4,
      `INSERT INTO agent_approvals (id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint,
         summary, input_preview, status, created_at)
       VALUES ('apr_old', 'run_1', 'call_1', 'write_file', 'write', 'd1', 'f', 's', '{}', 'granted',
         '2030-01-01T00:00:00.000Z')`,
    );
    const state = await openPostgresState({ url: database.url });
    cleanups.push(() => state.close());
    // Version 1 was the only way actions were digested before the column existed.
    expect((await state.approvals.getApproval("apr_old"))?.digestVersion).toBe(1);
    await state.approvals.saveApprovalRequest(
      sampleApprovalRequest("apr_new", { runId: "run_2", digestVersion: 7 }),
    );
    expect((await state.approvals.getApproval("apr_new"))?.digestVersion).toBe(7);
  });

  it("refuses a database migrated by a newer version, and a URL that is not postgres, without echoing it", async () => {
    const { state, url } = await freshState();
    await state.pool.query(
      "INSERT INTO agent_schema_migrations (component, version, description) VALUES ('store-postgres', 99, 'future')",
    );
    await expect(openPostgresState({ url })).rejects.toMatchObject({ code: "store_schema_newer" });
    const secretUrl = "mysql://user:hunter2@127.0.0.1/db";
    const failure = (await openPostgresState({ url: secretUrl }).catch((error: unknown) => error)) as Error;
    expect(failure).toMatchObject({ code: "store_invalid_url" });
    expect(String((failure as Error).message)).not.toContain("hunter2");
  });
});
