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
import { claimCallRun, type RunState, settleCallRun, startCallRun } from "@agent/loop";
import { sampleApprovalRequest } from "@agent/policy/testing";
import { SQLITE_MIGRATIONS, SQLITE_SCHEMA_VERSION } from "@agent/store-sqlite";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  readReleasedState,
  writeReleasedDatabase,
} from "../../../packages/store-sqlite/test/fixtures/released-database.js";
import {
  auditLogPath,
  callRunView,
  currentRunOwner,
  isRunOwnerGone,
  type RunOwner,
  resolveStateDir,
  SqliteStateStore,
  StateError,
  stateDatabasePath,
} from "../src/state/index.js";

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

function openAt(now: () => Date): SqliteStateStore {
  const store = SqliteStateStore.open(stateDir, { now });
  stores.push(store);
  return store;
}

const OWNER_A: RunOwner = { pid: 1, host: "here" };
const OWNER_B: RunOwner = { pid: 2, host: "here" };

async function loadCallRun(store: SqliteStateStore, runId: string): Promise<RunState> {
  const run = await store.runs.loadRun(runId);
  if (!run) throw new Error(`${runId} is missing`);
  return run;
}

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

const request = sampleApprovalRequest;

describe("opening the state database", () => {
  it("creates a private directory and file, and the stores of @agent/store-sqlite in it", async () => {
    const store = open();
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(statSync(store.file).mode & 0o777).toBe(0o600);
    expect(store.file).toBe(stateDatabasePath(stateDir));
    await store.approvals.saveApprovalRequest(request("apr_1"));
    const database = new Database(store.file, { readonly: true });
    try {
      expect(database.pragma("user_version", { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      expect(database.prepare("SELECT id FROM approvals").all()).toEqual([{ id: "apr_1" }]);
    } finally {
      database.close();
    }
  });

  it("keeps runs and approvals across reopening", async () => {
    const first = open();
    const started = await startCallRun(first.runs, {
      toolName: "read_file",
      input: { path: "a.txt" },
      cwd: root,
    });
    const run = await settleCallRun(first.runs, started, { type: "held", requestId: "apr_1" });
    await first.approvals.saveApprovalRequest(request("apr_1", { runId: run.runId }));
    first.close();
    const second = open();
    expect(await second.runs.loadRun(run.runId)).toEqual(run);
    expect((await second.approvals.getApproval("apr_1"))?.status).toBe("pending");
  });

  it("refuses a database from a newer version with the CLI's code, and leaves it untouched", () => {
    open().close();
    const file = stateDatabasePath(stateDir);
    const database = new Database(file);
    database.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    database.pragma("journal_mode = DELETE");
    database.close();
    const before = snapshot(file);
    const error = stateErrorOf(() => open());
    expect(error.code).toBe("state_too_new");
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    expect(error.message).toContain(`schema version ${SQLITE_SCHEMA_VERSION + 1}`);
    expect(error.message).toContain("Upgrade the agent");
    expect(snapshot(file)).toEqual(before);
  });

  it("refuses a file that is not a database with the CLI's code, and leaves it untouched", () => {
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

  it("opens a state directory of the release before @agent/store-sqlite, its one-call runs included", async () => {
    // Written and read back by that release's own code: see packages/store-sqlite/test/fixtures.
    const released = readReleasedState();
    mkdirSync(stateDir, { mode: 0o700 });
    writeReleasedDatabase(stateDatabasePath(stateDir));
    const store = open();
    // `runs show --json` shows its one-call runs as that release did (an outcome that was no
    // observation, as only a test wrote, is kept whole as the output of one).
    for (const legacy of released.callRuns) {
      const { outcome, ...view } = callRunView(await loadCallRun(store, legacy.id));
      const { outcome: legacyOutcome, ...legacyView } = legacy;
      expect(view).toEqual(legacyView);
      if (legacyOutcome !== undefined) expect(outcome).toMatchObject({ ok: true, output: legacyOutcome });
    }
    expect(await store.approvals.listApprovals()).toEqual(released.approvals);
    expect(await store.runs.loadRun("run_agent")).toEqual(released.agentRun);
    // Its waiting call can be resumed as before: claimed once, by one of two processes.
    const waiting = await loadCallRun(store, "run_call");
    expect(await claimCallRun(store.runs, waiting, { owner: { ...OWNER_A } })).toMatchObject({
      status: "running",
      owner: OWNER_A,
    });
    expect(await claimCallRun(open().runs, waiting, { owner: { ...OWNER_B } })).toBeUndefined();
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
    old.exec(String(SQLITE_MIGRATIONS.find((migration) => migration.version === 1)?.sql));
    old.pragma("user_version = 1");
    const insertRun = old.prepare(
      `INSERT INTO runs (id, created_at, updated_at, status, tool_name, call_id, input_json, cwd, request_id)
       VALUES (?, '2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z', ?, 'write_file', 'call_1', '{"path":"a"}', '/w', ?)`,
    );
    insertRun.run("run_old_waiting", "waiting", "apr_1");
    insertRun.run("run_old_running", "running", null);
    old.close();

    const store = open();
    await store.approvals.saveApprovalRequest(request("apr_1", { runId: "run_old_waiting" }));
    expect(callRunView(await loadCallRun(store, "run_old_waiting"))).toEqual({
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
    const running = callRunView(await loadCallRun(store, "run_old_running"));
    expect(running).toMatchObject({ status: "running" });
    expect(running.owner).toBeUndefined();
    // The migrated database works as a new one does.
    const started = await startCallRun(store.runs, {
      toolName: "read_file",
      input: {},
      cwd: "/",
      owner: { ...OWNER_A },
    });
    expect(callRunView(await loadCallRun(store, started.runId)).owner).toEqual(OWNER_A);
    const claimed = await claimCallRun(store.runs, await loadCallRun(store, "run_old_waiting"), {
      owner: { ...OWNER_B },
    });
    expect(claimed && callRunView(claimed)).toMatchObject({ status: "running", owner: OWNER_B });
    store.close();

    const database = new Database(file, { readonly: true });
    try {
      expect(database.pragma("user_version", { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      // One saved format of a run: the one-call runs' own table is gone.
      expect(database.pragma("table_info(runs)")).toEqual([]);
    } finally {
      database.close();
    }
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
