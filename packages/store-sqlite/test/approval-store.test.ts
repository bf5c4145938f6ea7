import { APPROVAL_STORE_CONTRACT, sampleApprovalRequest as request } from "@agent/policy/testing";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { createSqliteState, SQLITE_MIGRATIONS, type SqliteState } from "../src/index.js";
import { useScratchDirectory } from "./scratch.js";

const scratch = useScratchDirectory();
const DIGEST_A = "a".repeat(64);
const DIGEST_B = "b".repeat(64);

/** A database file migrated up to `version` only, as an older release left it. */
function oldDatabase(version: number): Database.Database {
  const database = new Database(scratch.file());
  for (const migration of SQLITE_MIGRATIONS.filter((step) => step.version <= version)) {
    database.exec(migration.sql);
  }
  database.pragma(`user_version = ${version}`);
  return database;
}

describe("SqliteApprovalStore: the ApprovalStore contract", () => {
  for (const scenario of APPROVAL_STORE_CONTRACT) {
    it(scenario.name, () => scenario.run((now) => scratch.open({ now }).approvals));
  }
});

describe("SqliteApprovalStore: the ApprovalStore contract, in memory (the root entry alone)", () => {
  const states: SqliteState[] = [];
  afterEach(() => {
    for (const state of states.splice(0)) state.close();
  });
  for (const scenario of APPROVAL_STORE_CONTRACT) {
    it(scenario.name, () =>
      scenario.run((now) => {
        const state = createSqliteState(new Database(":memory:"), { now });
        states.push(state);
        return state.approvals;
      }),
    );
  }
});

describe("SqliteApprovalStore", () => {
  it("keeps unverified hints, and leaves them out when there are none", async () => {
    const { approvals } = scratch.open();
    const { record: saved } = await approvals.saveApprovalRequest(
      request("apr_1", { unverifiedHints: { readOnlyHint: true } }),
    );
    expect(saved.unverifiedHints).toEqual({ readOnlyHint: true });
    const { record: plain } = await approvals.saveApprovalRequest(
      request("apr_2", { actionDigest: DIGEST_B }),
    );
    expect("unverifiedHints" in plain).toBe(false);
  });

  it("records who decided: the granting or denying user; voiding keeps the granter, or records the voider", async () => {
    const alice = scratch.open({ decidedBy: "alice" }).approvals;
    const bob = scratch.open({ decidedBy: "bob" }).approvals;
    await alice.saveApprovalRequest(request("apr_1"));
    await alice.saveApprovalRequest(request("apr_2", { actionDigest: DIGEST_B }));
    await alice.saveApprovalRequest(request("apr_3", { runId: "run_2" }));
    expect(await alice.grantApproval("apr_1")).toMatchObject({ decidedBy: "alice" });
    expect(await bob.denyApproval("apr_2")).toMatchObject({ decidedBy: "bob" });
    expect(await bob.voidApproval("apr_1", "changed")).toMatchObject({
      status: "voided",
      decidedBy: "alice",
    });
    expect(await bob.voidApproval("apr_3", "changed")).toMatchObject({ decidedBy: "bob" });
    // A store told nobody records nobody.
    const anonymous = scratch.open().approvals;
    await anonymous.saveApprovalRequest(request("apr_4", { runId: "run_3" }));
    expect("decidedBy" in (await anonymous.grantApproval("apr_4"))).toBe(false);
  });

  it("consumes a grant once across connections to the same file", async () => {
    const first = scratch.open().approvals;
    await first.saveApprovalRequest(request("apr_1"));
    await first.grantApproval("apr_1");
    const stores = [first, scratch.open().approvals, scratch.open().approvals, scratch.open().approvals];
    const results = await Promise.all(stores.map((store) => store.consumeApprovalGrant("run_1", DIGEST_A)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe("schema migration 4", () => {
  it("keeps every approval of a version 3 database, in order, and lets them be voided", async () => {
    const old = oldDatabase(3);
    const insert = old.prepare(
      `INSERT INTO approvals (id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint, summary,
         input_preview, status, created_at, decided_at)
       VALUES (?, 'run_1', 'call_1', 'write_file', 'write', ?, 'f', 's', '{}', ?, '2030-01-01T00:00:00.000Z', NULL)`,
    );
    // Same created_at: only the rowid keeps their order.
    insert.run("apr_b", "d1", "granted");
    insert.run("apr_a", "d2", "pending");
    insert.run("apr_c", "d3", "consumed");
    old.close();

    const { approvals } = scratch.open();
    const records = await approvals.listApprovals();
    expect(records.map((record) => [record.id, record.status])).toEqual([
      ["apr_b", "granted"],
      ["apr_a", "pending"],
      ["apr_c", "consumed"],
    ]);
    // Recorded before the digest's inputs were kept: they stay absent, not invented.
    expect(records[0]?.input).toBeUndefined();
    expect(records[0]?.cwd).toBeUndefined();
    expect((await approvals.voidApproval("apr_b", "changed"))?.status).toBe("voided");
    expect(await approvals.consumeApprovalGrant("run_1", "d1")).toBe(false);
    // The one-pending-per-action index survived the rebuild.
    await approvals.saveApprovalRequest(request("apr_new", { runId: "run_1", actionDigest: "d2" }));
    expect((await approvals.listApprovals({ status: "pending" })).map((record) => record.id)).toEqual([
      "apr_a",
    ]);
  });
});

describe("schema migration 6", () => {
  it("records the approvals of a version 5 database as digested under version 1, and keeps new versions", async () => {
    const old = oldDatabase(5);
    old
      .prepare(
        `INSERT INTO approvals (id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint, summary,
           input_preview, status, created_at)
         VALUES ('apr_old', 'run_1', 'call_1', 'write_file', 'write', 'd1', 'f', 's', '{}', 'granted',
           '2030-01-01T00:00:00.000Z')`,
      )
      .run();
    old.close();

    const { approvals } = scratch.open();
    // Version 1 was the only way actions were digested before the column existed.
    expect((await approvals.getApproval("apr_old"))?.digestVersion).toBe(1);
    await approvals.saveApprovalRequest(request("apr_new", { runId: "run_2", digestVersion: 7 }));
    expect((await approvals.getApproval("apr_new"))?.digestVersion).toBe(7);
  });
});
