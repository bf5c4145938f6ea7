import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APPROVAL_STORE_CONTRACT, sampleApprovalRequest } from "@agent/policy/testing";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  auditLogPath,
  currentRunOwner,
  isRunOwnerGone,
  type RunOwner,
  resolveStateDir,
  SqliteStateStore,
  STATE_SCHEMA_VERSION,
  StateError,
  stateDatabasePath,
} from "../src/state/index.js";
import { MIGRATIONS } from "../src/state/schema-migrations.js";

let root: string;
let stateDir: string;
const stores: SqliteStateStore[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "agent-state-"));
  stateDir = join(root, ".agent");
});

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  rmSync(root, { recursive: true, force: true });
});

function open(time = "2030-01-02T04:00:00.000Z"): SqliteStateStore {
  return openAt(() => new Date(time));
}

function openAt(now: () => Date, owner?: RunOwner): SqliteStateStore {
  const store = SqliteStateStore.open(stateDir, owner ? { now, owner } : { now });
  stores.push(store);
  return store;
}

/** A store whose process is `owner` (two stores stand for two processes). */
function openAs(owner: RunOwner): SqliteStateStore {
  return openAt(() => new Date("2030-01-02T04:00:00.000Z"), owner);
}

const OWNER_A: RunOwner = { pid: 1, host: "here" };
const OWNER_B: RunOwner = { pid: 2, host: "here" };

function stateErrorOf(action: () => unknown): StateError {
  try {
    action();
  } catch (error) {
    if (error instanceof StateError) return error;
    throw error;
  }
  throw new Error("expected a StateError");
}

function snapshot(file: string): { bytes: Buffer; mtimeMs: number; siblings: string[] } {
  return {
    bytes: readFileSync(file),
    mtimeMs: statSync(file).mtimeMs,
    siblings: readdirSync(stateDir).sort(),
  };
}

const DIGEST_A = "a".repeat(64);
const DIGEST_B = "b".repeat(64);
const request = sampleApprovalRequest;

describe("opening the state database", () => {
  it("creates a private directory and file and migrates an empty database", () => {
    const store = open();
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(store.file).toBe(stateDatabasePath(stateDir));
    const database = new Database(store.file, { readonly: true });
    try {
      expect(database.pragma("user_version", { simple: true })).toBe(STATE_SCHEMA_VERSION);
      expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
      const tables = database
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all();
      expect(tables).toEqual([
        { name: "agent_run_calls" },
        { name: "agent_run_messages" },
        { name: "agent_runs" },
        { name: "approvals" },
        { name: "runs" },
        { name: "taint_windows" },
        { name: "tainted_files" },
      ]);
    } finally {
      database.close();
    }
  });

  it("keeps runs and approvals across reopening", async () => {
    const first = open();
    const run = first.createRun({
      toolName: "read_file",
      input: { path: "a.txt" },
      cwd: root,
      status: "waiting",
    });
    await first.approvals.saveApprovalRequest(request("apr_1", { runId: run.id }));
    first.close();
    const second = open();
    expect(second.getRun(run.id)).toEqual(run);
    expect((await second.approvals.getApproval("apr_1"))?.status).toBe("pending");
  });

  it("refuses a database from a newer version and leaves it untouched", () => {
    open().close();
    const file = stateDatabasePath(stateDir);
    const database = new Database(file);
    database.pragma(`user_version = ${STATE_SCHEMA_VERSION + 1}`);
    database.pragma("journal_mode = DELETE");
    database.close();
    const before = snapshot(file);
    const error = stateErrorOf(() => open());
    expect(error.code).toBe("state_too_new");
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    expect(error.message).toContain(`schema version ${STATE_SCHEMA_VERSION + 1}`);
    expect(error.message).toContain("Upgrade the agent");
    expect(snapshot(file)).toEqual(before);
  });

  it("refuses a file that is not a database and leaves it untouched", () => {
    open().close();
    const file = stateDatabasePath(stateDir);
    writeFileSync(file, "these bytes are not a SQLite database, and must survive\n".repeat(100));
    const before = snapshot(file);
    const error = stateErrorOf(() => open());
    expect(error.code).toBe("state_corrupt");
    expect(error.message).toContain(file);
    expect(error.message).toContain("Move it aside");
    expect(snapshot(file)).toEqual(before);
  });

  it("refuses a damaged database and leaves it untouched", async () => {
    const store = open();
    for (let index = 0; index < 50; index += 1) {
      store.createRun({
        toolName: "read_file",
        input: { path: `file-${index}.txt`, pad: "x".repeat(500) },
        cwd: root,
      });
    }
    store.close();
    const file = stateDatabasePath(stateDir);
    const bytes = readFileSync(file);
    // Overwrite the second page (the first table's b-tree root) with garbage.
    bytes.fill(0xff, 4096, 8192);
    writeFileSync(file, bytes);
    const before = snapshot(file);
    const error = stateErrorOf(() => open());
    expect(error.code).toBe("state_corrupt");
    expect(snapshot(file)).toEqual(before);
  });
});

describe("runs", () => {
  it("creates, reads, updates and lists runs", () => {
    const store = open();
    const run = store.createRun({
      id: "run_a",
      toolName: "write_file",
      input: { path: "a.txt", content: "hi" },
      cwd: "/work",
      toolFingerprint: "f".repeat(64),
      status: "waiting",
      requestId: "apr_1",
    });
    expect(run).toEqual({
      id: "run_a",
      createdAt: "2030-01-02T04:00:00.000Z",
      updatedAt: "2030-01-02T04:00:00.000Z",
      status: "waiting",
      toolName: "write_file",
      callId: expect.stringMatching(/^call_/),
      input: { path: "a.txt", content: "hi" },
      toolFingerprint: "f".repeat(64),
      cwd: "/work",
      requestId: "apr_1",
    });
    const later = open("2030-01-02T05:00:00.000Z");
    const finished = later.updateRun("run_a", { status: "completed", outcome: { ok: true, output: 1 } });
    expect(finished).toMatchObject({
      status: "completed",
      updatedAt: "2030-01-02T05:00:00.000Z",
      outcome: { ok: true },
    });
    later.createRun({ id: "run_b", toolName: "read_file", input: {}, cwd: "/work" });
    expect(later.listRuns().map((item) => item.id)).toEqual(["run_b", "run_a"]);
    expect(later.listRuns({ status: "running" }).map((item) => item.id)).toEqual(["run_b"]);
    expect(later.listRuns({ limit: 1 }).map((item) => item.id)).toEqual(["run_b"]);
    expect(stateErrorOf(() => later.updateRun("run_missing", { status: "failed" })).code).toBe(
      "run_not_found",
    );
    expect(
      stateErrorOf(() => later.createRun({ id: "run_a", toolName: "x", input: {}, cwd: "/" })).code,
    ).toBe("run_exists");
  });

  it("records the owner of a running run, and only while it is running", () => {
    const store = openAs(OWNER_A);
    expect(store.createRun({ id: "run_r", toolName: "read_file", input: {}, cwd: "/" }).owner).toEqual(
      OWNER_A,
    );
    const waiting = store.createRun({
      id: "run_w",
      toolName: "read_file",
      input: {},
      cwd: "/",
      status: "waiting",
    });
    expect(waiting.owner).toBeUndefined();
    expect(store.updateRun("run_r", { status: "completed" }).owner).toBeUndefined();
    // Whoever sets a run running owns it.
    expect(openAs(OWNER_B).updateRun("run_w", { status: "running" }).owner).toEqual(OWNER_B);
  });

  it("claims a run once, and only as it was read: status and owner (compare-and-set)", () => {
    const store = openAs(OWNER_A);
    store.createRun({ id: "run_w", toolName: "write_file", input: {}, cwd: "/", status: "waiting" });
    const other = openAs(OWNER_B);
    const waiting = store.getRun("run_w");
    if (!waiting) throw new Error("run_w is missing");
    expect(store.claimRun(waiting)).toMatchObject({ status: "running", owner: OWNER_A });
    expect(other.claimRun(waiting)).toBeUndefined();

    // A running run is taken over only from the owner that was seen, and by one process.
    const running = other.getRun("run_w");
    if (!running) throw new Error("run_w is missing");
    const third = openAs({ pid: 3, host: "here" });
    expect(other.claimRun(running)).toMatchObject({ status: "running", owner: OWNER_B });
    expect(third.claimRun(running)).toBeUndefined();
    expect(store.getRun("run_w")?.owner).toEqual(OWNER_B);
    expect(stateErrorOf(() => other.claimRun({ id: "run_nope", status: "waiting" })).code).toBe(
      "run_not_found",
    );
  });
});

describe("run owners", () => {
  it("counts an owner as gone only when it was on this host and its pid no longer exists", async () => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
    await new Promise((resolve) => child.once("exit", resolve));
    const here = currentRunOwner();
    expect(isRunOwnerGone({ pid: Number(child.pid), host: here.host }, here)).toBe(true);
    // Alive: this process, and its parent.
    expect(isRunOwnerGone(here, here)).toBe(false);
    expect(isRunOwnerGone({ pid: process.ppid, host: here.host }, here)).toBe(false);
    // Unknowable from here: another host; and pids that name process groups, not one process.
    expect(isRunOwnerGone({ pid: Number(child.pid), host: `not-${here.host}` }, here)).toBe(false);
    for (const pid of [0, -1, 1.5]) expect(isRunOwnerGone({ pid, host: here.host }, here)).toBe(false);
  });
});

describe("schema migrations", () => {
  it("brings a version 1 database up to date in place, keeping its runs and approvals", async () => {
    mkdirSync(stateDir, { mode: 0o700 });
    const file = stateDatabasePath(stateDir);
    const old = new Database(file);
    old.exec(String(MIGRATIONS.find((migration) => migration.version === 1)?.sql));
    old.pragma("user_version = 1");
    const insertRun = old.prepare(
      `INSERT INTO runs (id, created_at, updated_at, status, tool_name, call_id, input_json, cwd, request_id)
       VALUES (?, '2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', ?, 'write_file', 'call_1', '{"path":"a"}', '/w', ?)`,
    );
    insertRun.run("run_old_waiting", "waiting", "apr_1");
    insertRun.run("run_old_running", "running", null);
    old.close();

    const store = openAs(OWNER_A);
    await store.approvals.saveApprovalRequest(request("apr_1", { runId: "run_old_waiting" }));
    expect(store.getRun("run_old_waiting")).toEqual({
      id: "run_old_waiting",
      createdAt: "2030-01-01T00:00:00.000Z",
      updatedAt: "2030-01-01T00:00:00.000Z",
      status: "waiting",
      toolName: "write_file",
      callId: "call_1",
      input: { path: "a" },
      cwd: "/w",
      requestId: "apr_1",
    });
    // Nobody recorded who ran it: its owner stays unknown rather than guessed.
    expect(store.getRun("run_old_running")).toMatchObject({ status: "running" });
    expect(store.getRun("run_old_running")?.owner).toBeUndefined();
    // The migrated database works as a new one does.
    expect(store.createRun({ toolName: "read_file", input: {}, cwd: "/" }).owner).toEqual(OWNER_A);
    const claimed = store.claimRun({ id: "run_old_waiting", status: "waiting" });
    expect(claimed).toMatchObject({ status: "running", owner: OWNER_A });
    store.close();

    const database = new Database(file, { readonly: true });
    try {
      expect(database.pragma("user_version", { simple: true })).toBe(STATE_SCHEMA_VERSION);
      const columns = (database.pragma("table_info(runs)") as { name: string }[]).map(
        (column) => column.name,
      );
      expect(columns).toEqual(expect.arrayContaining(["owner_pid", "owner_host"]));
    } finally {
      database.close();
    }
  });
});

describe("schema migration 4", () => {
  it("keeps every approval of a version 3 database, in order, and lets them be voided", async () => {
    mkdirSync(stateDir, { mode: 0o700 });
    const file = stateDatabasePath(stateDir);
    const old = new Database(file);
    for (const migration of MIGRATIONS.filter((step) => step.version <= 3)) old.exec(migration.sql);
    old.pragma("user_version = 3");
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

    const store = openAs(OWNER_A);
    const records = await store.approvals.listApprovals();
    expect(records.map((record) => [record.id, record.status])).toEqual([
      ["apr_b", "granted"],
      ["apr_a", "pending"],
      ["apr_c", "consumed"],
    ]);
    // Recorded before the digest's inputs were kept: they stay absent, not invented.
    expect(records[0]?.input).toBeUndefined();
    expect(records[0]?.cwd).toBeUndefined();
    expect((await store.approvals.voidApproval("apr_b", "changed"))?.status).toBe("voided");
    expect(await store.approvals.consumeApprovalGrant("run_1", "d1")).toBe(false);
    // The one-pending-per-action index survived the rebuild.
    await store.approvals.saveApprovalRequest(request("apr_new", { runId: "run_1", actionDigest: "d2" }));
    expect((await store.approvals.listApprovals({ status: "pending" })).map((record) => record.id)).toEqual([
      "apr_a",
    ]);
    store.close();
  });
});

describe("schema migration 6", () => {
  it("records the approvals of a version 5 database as digested under version 1, and keeps new versions", async () => {
    mkdirSync(stateDir, { mode: 0o700 });
    const file = stateDatabasePath(stateDir);
    const old = new Database(file);
    for (const migration of MIGRATIONS.filter((step) => step.version <= 5)) old.exec(migration.sql);
    old.pragma("user_version = 5");
    old
      .prepare(
        `INSERT INTO approvals (id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint, summary,
           input_preview, status, created_at)
         VALUES ('apr_old', 'run_1', 'call_1', 'write_file', 'write', 'd1', 'f', 's', '{}', 'granted',
           '2030-01-01T00:00:00.000Z')`,
      )
      .run();
    old.close();

    const store = openAs(OWNER_A);
    // Version 1 was the only way actions were digested before the column existed.
    expect((await store.approvals.getApproval("apr_old"))?.digestVersion).toBe(1);
    await store.approvals.saveApprovalRequest(request("apr_new", { runId: "run_2", digestVersion: 7 }));
    expect((await store.approvals.getApproval("apr_new"))?.digestVersion).toBe(7);
    store.close();
  });
});

describe("SqliteStateStore.approvals", () => {
  for (const scenario of APPROVAL_STORE_CONTRACT) {
    it(scenario.name, () => scenario.run((now) => openAt(now).approvals));
  }

  it("keeps unverified hints, and leaves them out when there are none", async () => {
    const { approvals } = open();
    const saved = await approvals.saveApprovalRequest(
      request("apr_1", { unverifiedHints: { readOnlyHint: true } }),
    );
    expect(saved.unverifiedHints).toEqual({ readOnlyHint: true });
    const plain = await approvals.saveApprovalRequest(request("apr_2", { actionDigest: DIGEST_B }));
    expect("unverifiedHints" in plain).toBe(false);
  });

  it("records who decided: the granting or denying user; voiding keeps the granter, or records the voider", async () => {
    const alice = SqliteStateStore.open(stateDir, { decidedBy: "alice" });
    const bob = SqliteStateStore.open(stateDir, { decidedBy: "bob" });
    stores.push(alice, bob);
    await alice.approvals.saveApprovalRequest(request("apr_1"));
    await alice.approvals.saveApprovalRequest(request("apr_2", { actionDigest: DIGEST_B }));
    await alice.approvals.saveApprovalRequest(request("apr_3", { runId: "run_2" }));
    expect(await alice.approvals.grantApproval("apr_1")).toMatchObject({ decidedBy: "alice" });
    expect(await bob.approvals.denyApproval("apr_2")).toMatchObject({ decidedBy: "bob" });
    expect(await bob.approvals.voidApproval("apr_1", "changed")).toMatchObject({
      status: "voided",
      decidedBy: "alice",
    });
    expect(await bob.approvals.voidApproval("apr_3", "changed")).toMatchObject({ decidedBy: "bob" });
    // A store told nobody (a library user's) records nobody.
    await open().approvals.saveApprovalRequest(request("apr_4", { runId: "run_3" }));
    expect("decidedBy" in (await open().approvals.grantApproval("apr_4"))).toBe(false);
  });

  it("consumes a grant once across connections to the same file", async () => {
    const first = open();
    await first.approvals.saveApprovalRequest(request("apr_1"));
    await first.approvals.grantApproval("apr_1");
    const others = [open(), open(), open()];
    const results = await Promise.all(
      [first, ...others].map((store) => store.approvals.consumeApprovalGrant("run_1", DIGEST_A)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});

describe("state paths", () => {
  it("resolves the state directory from flag, then AGENT_STATE_DIR, then .agent in the cwd", () => {
    expect(resolveStateDir({ flag: "s", env: { AGENT_STATE_DIR: "/e" }, cwd: root })).toBe(join(root, "s"));
    expect(resolveStateDir({ env: { AGENT_STATE_DIR: "/e" }, cwd: root })).toBe("/e");
    expect(resolveStateDir({ cwd: root })).toBe(join(root, ".agent"));
    // Beside the config file, not in the current directory, when neither flag nor env says otherwise.
    expect(resolveStateDir({ cwd: root, configFile: "/p/agent.config.json" })).toBe("/p/.agent");
    expect(resolveStateDir({ cwd: root, configFile: "conf/a.json" })).toBe(join(root, "conf", ".agent"));
    expect(resolveStateDir({ flag: "s", cwd: root, configFile: "/p/a.json" })).toBe(join(root, "s"));
    expect(auditLogPath("/s")).toBe("/s/audit.jsonl");
    expect(existsSync(stateDir)).toBe(false);
  });
});
