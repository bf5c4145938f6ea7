import { callOfCallRun, claimCallRun, isCallRun, type RunState, settleCallRun } from "@agent/loop";
import { openPostgresState, type PostgresState } from "@agent/store-postgres";
import {
  reserveThrowawayCluster,
  THROWAWAY_CLUSTER_TIMEOUT_MS,
  type ThrowawayCluster,
  type ThrowawayClusterHandle,
} from "@agent/store-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_POSTGRES_MIGRATIONS } from "../src/state/postgres-cli-schema.js";

// The handle is taken before the start is awaited, so a hook that times out cannot orphan the server.
let throwaway: ThrowawayClusterHandle | undefined;
let cluster: ThrowawayCluster;
const opened: PostgresState[] = [];
beforeAll(async () => {
  throwaway = reserveThrowawayCluster();
  cluster = await throwaway.ready;
}, THROWAWAY_CLUSTER_TIMEOUT_MS);
afterAll(async () => {
  for (const state of opened.splice(0)) await state.close();
  await throwaway?.stop();
}, THROWAWAY_CLUSTER_TIMEOUT_MS);

/** The CLI's schema as the last release left it: every step before the one under test. */
const RELEASED = {
  component: CLI_POSTGRES_MIGRATIONS.component,
  migrations: CLI_POSTGRES_MIGRATIONS.migrations.filter((step) => step.version < 3),
};

async function open(url: string, extraMigrations = CLI_POSTGRES_MIGRATIONS): Promise<PostgresState> {
  const state = await openPostgresState({ url, extraMigrations });
  opened.push(state);
  return state;
}

const INSERT = `INSERT INTO agent_call_runs (id, created_at, updated_at, status, tool_name, call_id,
  input_json, tool_fingerprint, cwd, request_id, outcome_json, owner_pid, owner_host)
  VALUES ($1, '2030-01-01T00:00:00.000Z', $2, $3, 'mcp__s__echo', $4, '{"message":"hi ✓"}', $5, '/w', $6, $7, $8, $9)`;

describe("the CLI's step 3 on PostgreSQL: one-call runs become runs of the loop", () => {
  it("moves every row of agent_call_runs into the run tables, then drops it", async () => {
    const url = await cluster.createDatabase("call_runs_moved");
    const released = await open(url, RELEASED);
    const observation = {
      type: "observation",
      ok: true,
      callId: "call_d",
      toolName: "mcp__s__echo",
      output: 1,
    };
    const fingerprint = "f".repeat(64);
    await released.pool.query(INSERT, [
      "run_waiting",
      "2030-01-01T00:00:02.000Z",
      "waiting",
      "call_w",
      fingerprint,
      "apr_1",
      null,
      null,
      null,
    ]);
    await released.pool.query(INSERT, [
      "run_done",
      "2030-01-01T00:00:03.000Z",
      "completed",
      "call_d",
      fingerprint,
      null,
      JSON.stringify(observation),
      null,
      null,
    ]);
    await released.pool.query(INSERT, [
      "run_live",
      "2030-01-01T00:00:04.000Z",
      "running",
      "call_r",
      null,
      null,
      null,
      7,
      "machine-a",
    ]);
    await released.close();

    const state = await open(url);
    const waiting = (await state.runs.loadRun("run_waiting")) as RunState;
    expect(isCallRun(waiting)).toBe(true);
    expect(callOfCallRun(waiting)).toEqual({
      runId: "run_waiting",
      callId: "call_w",
      toolName: "mcp__s__echo",
      input: { message: "hi ✓" },
      cwd: "/w",
    });
    expect(waiting).toMatchObject({
      status: "waiting",
      version: 1,
      updatedAt: "2030-01-01T00:00:02.000Z",
      requestIds: ["apr_1"],
      toolSetFingerprint: fingerprint,
      pending: [{ status: "held", requestId: "apr_1" }],
    });
    expect(await state.runs.loadRun("run_done")).toMatchObject({
      status: "completed",
      calls: [{ callId: "call_d", observation, truncated: false, chars: 1, bytes: 1 }],
    });
    expect(await state.runs.loadRun("run_live")).toMatchObject({
      status: "running",
      owner: { pid: 7, host: "machine-a" },
    });
    const table = await state.pool.query("SELECT to_regclass('agent_call_runs') AS name");
    expect(table.rows).toEqual([{ name: null }]);
  });

  it("lets exactly one of many claims from two machines resume a migrated waiting run", async () => {
    const url = await cluster.createDatabase("call_runs_claimed");
    const released = await open(url, RELEASED);
    await released.pool.query(INSERT, [
      "run_held",
      "2030-01-01T00:00:00.000Z",
      "waiting",
      "call_h",
      null,
      "apr_1",
      null,
      null,
      null,
    ]);
    await released.close();
    const [machineA, machineB] = [await open(url), await open(url)];
    const seen = (await machineA.runs.loadRun("run_held")) as RunState;
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        claimCallRun((index % 2 === 0 ? machineA : machineB).runs, seen, { owner: { machine: index % 2 } }),
      ),
    );
    const won = claims.filter((claim) => claim !== undefined);
    expect(won).toHaveLength(1);
    const observation = {
      type: "observation",
      ok: true,
      callId: "call_h",
      toolName: "mcp__s__echo",
      output: 2,
    } as const;
    const answered = await settleCallRun(machineB.runs, won[0] as RunState, {
      type: "answered",
      observation,
    });
    expect(await machineA.runs.loadRun("run_held")).toEqual(answered);
  });
});
