import { openPostgresState, type PostgresState } from "@agent/store-postgres";
import {
  reserveThrowawayCluster,
  THROWAWAY_CLUSTER_TIMEOUT_MS,
  type ThrowawayCluster,
  type ThrowawayClusterHandle,
} from "@agent/store-postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_POSTGRES_MIGRATIONS, PostgresCallRuns } from "../src/state/postgres-call-runs.js";

// The handle is taken before the start is awaited, so a hook that times out cannot orphan the server.
let throwaway: ThrowawayClusterHandle | undefined;
let state: PostgresState;
beforeAll(async () => {
  throwaway = reserveThrowawayCluster();
  const cluster: ThrowawayCluster = await throwaway.ready;
  state = await openPostgresState({ url: cluster.url, extraMigrations: CLI_POSTGRES_MIGRATIONS });
}, THROWAWAY_CLUSTER_TIMEOUT_MS);
afterAll(async () => {
  await state?.close();
  await throwaway?.stop();
}, THROWAWAY_CLUSTER_TIMEOUT_MS);

const machineA = { pid: 101, host: "machine-a" };
const machineB = { pid: 202, host: "machine-b" };

describe("one-call runs on PostgreSQL", () => {
  it("creates, reads, updates and lists runs as the SQLite state does", async () => {
    const runs = new PostgresCallRuns(state.pool, machineA);
    const run = await runs.createRun({ id: "run_1", toolName: "echo", input: { text: "hi ✓" }, cwd: "/w" });
    expect(run).toMatchObject({ id: "run_1", status: "running", owner: machineA, input: { text: "hi ✓" } });
    await expect(
      runs.createRun({ id: "run_1", toolName: "echo", input: {}, cwd: "/w" }),
    ).rejects.toMatchObject({
      code: "run_exists",
    });
    const waiting = await runs.updateRun("run_1", { status: "waiting", requestId: "apr_1" });
    expect(waiting).toMatchObject({ status: "waiting", requestId: "apr_1" });
    expect(waiting.owner).toBeUndefined();
    await expect(runs.updateRun("run_missing", { status: "failed" })).rejects.toMatchObject({
      code: "run_not_found",
    });
    expect((await runs.listRuns({ status: "waiting" })).map((entry) => entry.id)).toContain("run_1");
  });

  it("lets exactly one of many claims from two machines start a waiting run", async () => {
    const onA = new PostgresCallRuns(state.pool, machineA);
    const onB = new PostgresCallRuns(state.pool, machineB);
    const seen = await onA.createRun({
      id: "run_race",
      toolName: "echo",
      input: {},
      cwd: "/w",
      status: "waiting",
    });
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? onA : onB).claimRun(seen)),
    );
    const won = claims.filter((claim) => claim !== undefined);
    expect(won).toHaveLength(1);
    expect((await onA.getRun("run_race"))?.owner).toEqual(won[0]?.owner);
    await expect(onA.claimRun({ id: "run_nope", status: "waiting" })).rejects.toMatchObject({
      code: "run_not_found",
    });
  });
});
