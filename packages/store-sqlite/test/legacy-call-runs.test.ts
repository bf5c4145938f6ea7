import { callOfCallRun, claimCallRun, isCallRun, type RunState, settleCallRun } from "@agent/loop";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { SQLITE_MIGRATIONS } from "../src/index.js";
import { readReleasedState, writeReleasedDatabase } from "./fixtures/released-database.js";
import { useScratchDirectory } from "./scratch.js";

const released = readReleasedState();
const scratch = useScratchDirectory();

/** The schema as the last release left it (every step before 8), built from the steps themselves. */
function releasedSchema(file: string): Database.Database {
  const database = new Database(file);
  for (const step of SQLITE_MIGRATIONS.filter((migration) => migration.version < 8)) {
    database.exec(step.sql);
    database.pragma(`user_version = ${step.version}`);
  }
  return database;
}

const LEGACY_ROW = `INSERT INTO runs (id, created_at, updated_at, status, tool_name, call_id, input_json,
  tool_fingerprint, cwd, request_id, outcome_json, owner_pid, owner_host)
  VALUES (@id, @created, @updated, @status, 'write_file', @call, '{"path":"a","n":[1,null]}',
  @fingerprint, '/w', @request, @outcome, @pid, @host)`;

const ROW = {
  created: "2030-01-01T00:00:00.000Z",
  updated: "2030-01-01T00:00:01.000Z",
  fingerprint: null,
  request: null,
  outcome: null,
  pid: null,
  host: null,
};

function observation(ok: boolean, extra: object = {}) {
  return { type: "observation", ok, callId: "call_x", toolName: "write_file", ...extra };
}

describe("step 8: the one-call runs of the CLI's table become runs of the loop", () => {
  it("moves every row with its id, call, status, request, outcome and owner, and drops the table", async () => {
    const database = releasedSchema(scratch.file());
    const insert = database.prepare(LEGACY_ROW);
    const cut = { chars: 300_000, bytes: 300_001, sha256: "c".repeat(64), file: null };
    insert.run({
      ...ROW,
      id: "run_waiting",
      status: "waiting",
      call: "call_w",
      request: "apr_1",
      fingerprint: "f".repeat(64),
    });
    insert.run({
      ...ROW,
      id: "run_done",
      status: "completed",
      call: "call_d",
      outcome: JSON.stringify(observation(true, { output: "x", outputTruncated: cut })),
    });
    insert.run({
      ...ROW,
      id: "run_failed",
      status: "failed",
      call: "call_f",
      request: "apr_0",
      outcome: JSON.stringify(observation(false, { error: "tool_error", message: "no" })),
    });
    insert.run({ ...ROW, id: "run_live", status: "running", call: "call_r", pid: 42, host: "h" });
    insert.run({ ...ROW, id: "run_v1", status: "running", call: "call_v1" });
    database.close();

    const state = scratch.open();
    const load = async (runId: string) => (await state.runs.loadRun(runId)) as RunState;
    const waiting = await load("run_waiting");
    expect(isCallRun(waiting)).toBe(true);
    expect(callOfCallRun(waiting)).toEqual({
      runId: "run_waiting",
      callId: "call_w",
      toolName: "write_file",
      input: { path: "a", n: [1, null] },
      cwd: "/w",
    });
    expect(waiting).toMatchObject({
      version: 1,
      status: "waiting",
      createdAt: ROW.created,
      updatedAt: ROW.updated,
      requestIds: ["apr_1"],
      toolSetFingerprint: "f".repeat(64),
      owner: null,
      messages: [],
      calls: [],
      pending: [{ callId: "call_w", status: "held", requestId: "apr_1" }],
    });
    const done = await load("run_done");
    expect(done).toMatchObject({ status: "completed", pending: [{ status: "done" }], requestIds: [] });
    expect(done.calls).toEqual([
      {
        callId: "call_d",
        toolCallId: "call_d",
        toolName: "write_file",
        turn: 0,
        observation: observation(true, { output: "x", outputTruncated: cut }),
        truncated: true,
        chars: 300_000,
        bytes: 300_001,
        sha256: "c".repeat(64),
      },
    ]);
    // Answered as settleCallRun answers: a resume claims it, queueing its call again.
    expect(await load("run_failed")).toMatchObject({
      status: "failed",
      pending: [{ status: "done", requestId: "apr_0" }],
      calls: [
        { observation: { ok: false, error: "tool_error" }, truncated: false, chars: expect.any(Number) },
      ],
    });
    expect(await load("run_live")).toMatchObject({ status: "running", owner: { pid: 42, host: "h" } });
    // Nobody recorded who ran it: its owner stays unknown rather than guessed.
    expect(await load("run_v1")).toMatchObject({ status: "running", owner: null });
    expect((await state.runs.listRuns()).map((run) => [run.runId, run.call])).toEqual([
      ["run_v1", { toolName: "write_file" }],
      ["run_live", { toolName: "write_file" }],
      ["run_failed", { toolName: "write_file", requestId: "apr_0" }],
      ["run_done", { toolName: "write_file" }],
      ["run_waiting", { toolName: "write_file", requestId: "apr_1" }],
    ]);
    expect(state.database.prepare("SELECT name FROM sqlite_master WHERE name = 'runs'").all()).toEqual([]);
  });

  it("a held call of a database the last release wrote resumes once, through the run's version", async () => {
    writeReleasedDatabase(scratch.file());
    const state = scratch.open();
    for (const legacy of released.callRuns) {
      const run = (await state.runs.loadRun(legacy.id)) as RunState;
      expect(callOfCallRun(run)).toEqual({
        runId: legacy.id,
        callId: legacy.callId,
        toolName: legacy.toolName,
        input: legacy.input,
        cwd: legacy.cwd,
      });
      expect(run).toMatchObject({
        status: legacy.status,
        createdAt: legacy.createdAt,
        updatedAt: legacy.updatedAt,
      });
    }
    // That release's outcome was no observation: kept whole, as the output of one.
    const done = (await state.runs.loadRun("run_done")) as RunState;
    expect(done.calls.map((call) => call.observation)).toEqual([
      {
        type: "observation",
        ok: true,
        callId: done.pending[0]?.callId,
        toolName: "read_file",
        output: { type: "ok", content: "hello" },
      },
    ]);
    const waiting = (await state.runs.loadRun("run_call")) as RunState;
    expect(waiting).toMatchObject({ requestIds: ["apr_pending"], toolSetFingerprint: "f".repeat(64) });
    const [first, second] = await Promise.all([
      claimCallRun(state.runs, waiting, { owner: "a" }),
      claimCallRun(state.runs, waiting, { owner: "b" }),
    ]);
    expect([first, second].filter((claim) => claim !== undefined)).toHaveLength(1);
    const claimed = (first ?? second) as RunState;
    const answered = await settleCallRun(state.runs, claimed, {
      type: "answered",
      observation: {
        type: "observation",
        ok: true,
        callId: "call_apr_pending",
        toolName: "mcp__docs__search",
        output: 1,
      },
    });
    expect(await state.runs.loadRun("run_call")).toEqual(answered);
    expect(answered.status).toBe("completed");
  });
});
