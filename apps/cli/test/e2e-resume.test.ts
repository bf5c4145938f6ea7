import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import { startCallRun } from "@agent/loop";
import { describe, expect } from "vitest";
import {
  readReleasedState,
  writeReleasedDatabase,
} from "../../../packages/store-sqlite/test/fixtures/released-database.js";
import { type RunOwner, SqliteStateStore, stateDatabasePath } from "../src/state/index.js";
import {
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  firstText,
  observationOf,
  parseSingleJson,
  e2eTest as test,
} from "./e2e-helpers.js";

function configure(sandbox: E2eSandbox): void {
  sandbox.writeConfig({
    policy: { rules: [{ tool: "mcp__s__echo", decision: "allow" }] },
    mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
  });
}

/**
 * Records a run `running` in `owner`'s name, as an `agent call` does just before it executes; with
 * no owner, as a database migrated from schema version 1 holds a run that was running.
 */
async function createRunningRun(
  sandbox: E2eSandbox,
  owner: RunOwner | null,
  message: string,
): Promise<string> {
  const state = SqliteStateStore.open(sandbox.stateDir);
  try {
    const input = { message };
    const run = await startCallRun(state.runs, {
      toolName: "mcp__s__echo",
      input,
      cwd: sandbox.workspace,
      owner,
    });
    return run.runId;
  } finally {
    state.close();
  }
}

/** The one-call run as `agent runs show --json` prints it. */
async function readRun(sandbox: E2eSandbox, runId: string): Promise<{ status?: string; owner?: unknown }> {
  const shown = await sandbox.run(["runs", "show", runId, "--json"]);
  expect(shown.code, shown.stderr).toBe(0);
  return (parseSingleJson(shown.stdout) as { run: { status?: string; owner?: unknown } }).run;
}

/** The pid of a process that has exited and been reaped: what a `call` killed by SIGKILL or OOM leaves. */
async function pidOfExitedProcess(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });
  if (child.pid === undefined) throw new Error("the short-lived process did not start");
  return child.pid;
}

describe.concurrent("resume and the process that owns a running run", () => {
  test("a run whose process died on this host is taken over, once", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    configure(sandbox);
    const owner = { pid: await pidOfExitedProcess(), host: hostname() };
    const runId = await createRunningRun(sandbox, owner, "after the crash");

    const resumed = await sandbox.run(["resume", runId, "--json"]);

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`taking over run ${runId}: its process ${owner.pid}`);
    expect(JSON.parse(firstText(observationOf(resumed.stdout)))).toEqual({ message: "after the crash" });
    expect(sandbox.received("s", "tools/call")).toHaveLength(1);
    const run = await readRun(sandbox, runId);
    expect(run?.status).toBe("completed");
    expect(run?.owner).toBeUndefined();
  });

  test("a run running in a live process, on another host, or of unknown owner is refused with exit 2", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox);
    // This test's own process is alive for sure.
    const live = await createRunningRun(sandbox, { pid: process.pid, host: hostname() }, "live");
    const remote = await createRunningRun(sandbox, { pid: 1, host: `not-${hostname()}` }, "remote");
    // As a database migrated from schema version 1 holds a run that was running: no owner recorded.
    const unknown = await createRunningRun(sandbox, null, "unknown");
    const runs = [live, remote, unknown];
    const before = await Promise.all(runs.map((runId) => readRun(sandbox, runId)));

    const [refusedLive, refusedRemote, refusedUnknown] = await Promise.all([
      sandbox.run(["resume", live, "--json"]),
      sandbox.run(["resume", remote, "--json"]),
      sandbox.run(["resume", unknown, "--json"]),
    ]);

    for (const refused of [refusedLive, refusedRemote, refusedUnknown]) {
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stdout).toBe("");
    }
    expect(refusedLive.stderr).toContain(`Run "${live}" is running in process ${process.pid}`);
    expect(refusedRemote.stderr).toContain("only that host can take it over");
    expect(refusedUnknown.stderr).toContain("did not record its process");
    // Nothing ran, and each run is exactly as it was.
    expect(sandbox.received("s", "tools/call")).toEqual([]);
    expect(await Promise.all(runs.map((runId) => readRun(sandbox, runId)))).toEqual(before);
  });
});

describe("a state directory of the last release, its one-call runs moved into the run tables", () => {
  test("runs list and runs show print its one-call runs as that release did", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox);
    const released = readReleasedState();
    mkdirSync(sandbox.stateDir, { recursive: true, mode: 0o700 });
    writeReleasedDatabase(stateDatabasePath(sandbox.stateDir));

    const listed = await sandbox.run(["runs", "list", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const { runs } = parseSingleJson(listed.stdout) as { runs: { runId: string; kind: string }[] };
    expect(runs.filter((run) => run.kind === "call")).toEqual(
      released.callRuns.map(
        (run: {
          id: string;
          status: string;
          createdAt: string;
          updatedAt: string;
          toolName: string;
          requestId?: string;
        }) => ({
          runId: run.id,
          kind: "call",
          status: run.status,
          createdAt: run.createdAt,
          updatedAt: run.updatedAt,
          what: run.toolName,
          requestIds: run.requestId === undefined ? [] : [run.requestId],
        }),
      ),
    );
    const shown = await sandbox.run(["runs", "show", "run_call", "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(parseSingleJson(shown.stdout)).toEqual({
      kind: "call",
      run: released.callRuns.find((run: { id: string }) => run.id === "run_call"),
    });
  });
});
