import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ACTION_DIGEST_VERSION, type ApprovalRequest } from "@agent/policy";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStateStore } from "../src/state/index.js";
import { compileStateModules } from "./state-modules.js";

// The children run our real opener and consume function, not a copy (see compileStateModules).
const STATE_SOURCES = [
  "open-state-database",
  "grant-consumption",
  "schema-migrations",
  "state-error",
  "state-files",
  "state-paths",
];

const CHILD = `
import { openStateDatabase } from "./open-state-database.js";
import { createGrantConsumer } from "./grant-consumption.js";
const [stateDir, runId, digest, when] = process.argv.slice(2);
// "early": open before the start signal, so the race is on consuming; "late": race on opening too.
let database = when === "early" ? openStateDatabase(stateDir) : undefined;
process.stdout.write("ready\\n");
process.stdin.once("data", () => {
  database ??= openStateDatabase(stateDir);
  // Keep consuming until nothing is left, so each grant is contested by every process.
  const consumeGrant = createGrantConsumer(database);
  let consumed = 0;
  while (consumeGrant(runId, digest, new Date().toISOString())) consumed += 1;
  database.close();
  process.stdout.write(JSON.stringify({ consumed }) + "\\n");
  process.stdin.destroy();
});
`;

let root: string;
let moduleDir: string;
const children: ChildProcessWithoutNullStreams[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "agent-state-race-"));
  moduleDir = join(root, "modules");
  compileStateModules(moduleDir, STATE_SOURCES);
  writeFileSync(join(moduleDir, "child.mjs"), CHILD);
});

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

function startChild(
  stateDir: string,
  digest: string,
  when: "early" | "late",
): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [join(moduleDir, "child.mjs"), stateDir, "run_race", digest, when], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

function nextLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    let errors = "";
    const onData = (chunk: Buffer): void => {
      output += chunk.toString("utf8");
      const newline = output.indexOf("\n");
      if (newline === -1) return;
      child.stdout.off("data", onData);
      resolve(output.slice(0, newline));
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString("utf8");
    });
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before answering: ${errors}`)));
  });
}

function request(id: string, digest: string): ApprovalRequest {
  return {
    id,
    runId: "run_race",
    callId: `call_${id}`,
    toolName: "mcp__docs__delete",
    effect: "external",
    actionDigest: digest,
    digestVersion: ACTION_DIGEST_VERSION,
    toolFingerprint: "f".repeat(64),
    summary: "mcp__docs__delete (external) {}",
    createdAt: new Date().toISOString(),
    inputPreview: "{}",
  };
}

async function race(stateDir: string, digest: string, when: "early" | "late" = "early"): Promise<number[]> {
  const racers = Array.from({ length: 8 }, () => startChild(stateDir, digest, when));
  expect(await Promise.all(racers.map(nextLine))).toEqual(racers.map(() => "ready"));
  const answers = racers.map(nextLine);
  for (const child of racers) child.stdin.write("go\n");
  return (await Promise.all(answers)).map((line) => (JSON.parse(line) as { consumed: number }).consumed);
}

describe("consuming a grant across processes", () => {
  it("lets exactly one of eight processes consume a single grant", { timeout: 30_000 }, async () => {
    const stateDir = join(root, ".agent");
    const store = SqliteStateStore.open(stateDir);
    const digest = "d".repeat(64);
    await store.approvals.saveApprovalRequest(request("apr_1", digest));
    await store.approvals.grantApproval("apr_1");

    const consumed = await race(stateDir, digest);
    expect(consumed.filter((count) => count === 1)).toHaveLength(1);
    expect(consumed.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect((await store.approvals.getApproval("apr_1"))?.status).toBe("consumed");
    store.close();
  });

  it("hands out several grants for one action once each", { timeout: 30_000 }, async () => {
    const stateDir = join(root, ".agent");
    const store = SqliteStateStore.open(stateDir);
    const digest = "e".repeat(64);
    // One pending request per action at a time: save, grant, repeat.
    for (const id of ["apr_1", "apr_2", "apr_3", "apr_4", "apr_5"]) {
      await store.approvals.saveApprovalRequest(request(id, digest));
      await store.approvals.grantApproval(id);
    }

    const consumed = await race(stateDir, digest);
    expect(consumed.reduce((sum, count) => sum + count, 0)).toBe(5);
    const records = await store.approvals.listApprovals();
    expect(records.map((record) => record.status)).toEqual(Array(5).fill("consumed"));
    store.close();
  });

  it("lets eight processes create and migrate a new state directory at once", {
    timeout: 30_000,
  }, async () => {
    const stateDir = join(root, "fresh", ".agent");
    expect(await race(stateDir, "f".repeat(64), "late")).toEqual(Array(8).fill(0));
    const store = SqliteStateStore.open(stateDir);
    expect(store.listRuns()).toEqual([]);
    store.close();
  });
});
