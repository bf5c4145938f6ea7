import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SQLITE_SCHEMA_VERSION } from "../src/index.js";
import { readReleasedState, writeReleasedDatabase } from "./fixtures/released-database.js";
import { useScratchDirectory } from "./scratch.js";

// released-state.sql is, as text, the database the `agent` CLI's own state code wrote at the last
// commit before these stores moved into this package (fixtures/make-released-database.mjs, dumped by
// fixtures/dump-released-database.mjs: schema, user_version and rows, round-trip exact), and
// released-state.json is what that code read back from it (fixtures/read-released-database.mjs).
// Never regenerate them with this package: they stand for the databases users already have.
const released = readReleasedState();
const scratch = useScratchDirectory();

/** The released database, rebuilt from its dump in a scratch file, opened by this package's stores. */
function openReleased() {
  writeReleasedDatabase(scratch.file());
  return scratch.open({ decidedBy: "bob" });
}

describe("a state database written by the release before this package", () => {
  it("reads every approval, agent run, tainted file and window as that release did", async () => {
    const state = openReleased();
    expect(await state.approvals.listApprovals()).toEqual(released.approvals);
    const runs = await state.runs.listRuns();
    expect(runs.filter((run) => run.call === undefined)).toEqual(released.agentRuns);
    expect(await state.runs.loadRun("run_agent")).toEqual(released.agentRun);
    expect(await state.taintedFiles.findTaintedUnder("/work")).toEqual(released.taintedFiles);
    expect(await state.taintedFiles.listWindows()).toEqual(released.taintWindows);
  });

  it("keeps working: its grant is consumed once, its pending request decided, its run updated", async () => {
    const state = openReleased();
    expect(await state.approvals.consumeApprovalGrant("run_call", "b".repeat(64))).toBe(true);
    expect(await state.approvals.consumeApprovalGrant("run_call", "b".repeat(64))).toBe(false);
    expect(await state.approvals.grantApproval("apr_pending")).toMatchObject({
      status: "granted",
      decidedBy: "bob",
    });
    const run = await state.runs.loadRun("run_agent");
    expect(await state.runs.updateRun("run_agent", run?.version ?? 0, { set: { status: "completed" } })).toBe(
      (run?.version ?? 0) + 1,
    );
    state.close();
    const database = new Database(scratch.file(), { readonly: true });
    try {
      // Opening it brought it to the current schema (its one-call runs moved: see legacy-call-runs.test.ts).
      expect(database.pragma("user_version", { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
    } finally {
      database.close();
    }
  });
});
