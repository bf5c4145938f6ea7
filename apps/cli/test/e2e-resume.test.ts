import { spawn } from "node:child_process";
import { hostname } from "node:os";
import Database from "better-sqlite3";
import { describe, expect } from "vitest";
import { type RunOwner, type RunRecord, SqliteStateStore, stateDatabasePath } from "../src/state/index.js";
import { E2E_TIMEOUT_MS, type E2eSandbox, firstText, observationOf, e2eTest as test } from "./e2e-helpers.js";

function configure(sandbox: E2eSandbox): void {
  sandbox.writeConfig({
    policy: { rules: [{ tool: "mcp__s__echo", decision: "allow" }] },
    mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
  });
}

/** Records a run `running` in `owner`'s name, as an `agent call` does just before it executes. */
function createRunningRun(sandbox: E2eSandbox, owner: RunOwner, message: string): string {
  const state = SqliteStateStore.open(sandbox.stateDir, { owner });
  try {
    return state.createRun({ toolName: "mcp__s__echo", input: { message }, cwd: sandbox.workspace }).id;
  } finally {
    state.close();
  }
}

function readRun(sandbox: E2eSandbox, runId: string): RunRecord | undefined {
  const state = SqliteStateStore.open(sandbox.stateDir);
  try {
    return state.getRun(runId);
  } finally {
    state.close();
  }
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
    const runId = createRunningRun(sandbox, owner, "after the crash");

    const resumed = await sandbox.run(["resume", runId, "--json"]);

    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`taking over run ${runId}: its process ${owner.pid}`);
    expect(JSON.parse(firstText(observationOf(resumed.stdout)))).toEqual({ message: "after the crash" });
    expect(sandbox.received("s", "tools/call")).toHaveLength(1);
    const run = readRun(sandbox, runId);
    expect(run?.status).toBe("completed");
    expect(run?.owner).toBeUndefined();
  });

  test("a run running in a live process, on another host, or of unknown owner is refused with exit 2", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox);
    // This test's own process is alive for sure.
    const live = createRunningRun(sandbox, { pid: process.pid, host: hostname() }, "live");
    const remote = createRunningRun(sandbox, { pid: 1, host: `not-${hostname()}` }, "remote");
    // As a database migrated from schema version 1 holds a run that was running: no owner recorded.
    const unknown = createRunningRun(sandbox, { pid: process.pid, host: hostname() }, "unknown");
    const database = new Database(stateDatabasePath(sandbox.stateDir));
    try {
      database.prepare("UPDATE runs SET owner_pid = NULL, owner_host = NULL WHERE id = ?").run(unknown);
    } finally {
      database.close();
    }
    const before = [live, remote, unknown].map((runId) => readRun(sandbox, runId));

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
    expect([live, remote, unknown].map((runId) => readRun(sandbox, runId))).toEqual(before);
  });
});
