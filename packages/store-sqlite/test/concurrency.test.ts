import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLineChildren, type LineChild } from "@agent/base/testing";
import { sampleApprovalRequest } from "@agent/policy/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compileSources } from "./compiled-sources.js";
import { useScratchDirectory } from "./scratch.js";

// The children run this package's real opener and consume function, not a copy (see compileSources).
const SOURCES = [
  "errors",
  "migrations",
  "legacy-call-runs",
  "run-rows",
  "grant-consumption",
  "file/regular-files",
  "file/open-sqlite-database",
];

const CHILD = `
import { openSqliteDatabase } from "./file/open-sqlite-database.js";
import { createGrantConsumer } from "./grant-consumption.js";
const [file, runId, digest, when] = process.argv.slice(2);
// "early": open before the start signal, so the race is on consuming; "late": race on opening too.
let database = when === "early" ? openSqliteDatabase(file) : undefined;
process.stdout.write("ready\\n");
process.stdin.once("data", () => {
  database ??= openSqliteDatabase(file);
  // Keep consuming until nothing is left, so each grant is contested by every process.
  const consumeGrant = createGrantConsumer(database);
  let consumed = 0;
  while (consumeGrant(runId, digest, new Date().toISOString())) consumed += 1;
  database.close();
  process.stdout.write(JSON.stringify({ consumed }) + "\\n");
  process.stdin.destroy();
});
`;

const scratch = useScratchDirectory();
const children = createLineChildren();
let moduleDir: string;

beforeEach(() => {
  moduleDir = join(scratch.dir(), "modules");
  compileSources(moduleDir, SOURCES);
  writeFileSync(join(moduleDir, "child.mjs"), CHILD);
});

afterEach(() => children.killAll());

function startChild(file: string, digest: string, when: "early" | "late"): LineChild {
  return children.start(join(moduleDir, "child.mjs"), [file, "run_race", digest, when]);
}

const request = (id: string, digest: string) =>
  sampleApprovalRequest(id, { runId: "run_race", actionDigest: digest, createdAt: new Date().toISOString() });

async function race(file: string, digest: string, when: "early" | "late" = "early"): Promise<number[]> {
  const racers = Array.from({ length: 8 }, () => startChild(file, digest, when));
  expect(await Promise.all(racers.map((racer) => racer.nextLine()))).toEqual(racers.map(() => "ready"));
  const answers = racers.map((racer) => racer.nextLine());
  for (const racer of racers) racer.send("go");
  return (await Promise.all(answers)).map((line) => (JSON.parse(line) as { consumed: number }).consumed);
}

describe("consuming a grant across processes", () => {
  it("lets exactly one of eight processes consume a single grant", { timeout: 30_000 }, async () => {
    const { approvals } = scratch.open();
    const digest = "d".repeat(64);
    await approvals.saveApprovalRequest(request("apr_1", digest));
    await approvals.grantApproval("apr_1");

    const consumed = await race(scratch.file(), digest);
    expect(consumed.filter((count) => count === 1)).toHaveLength(1);
    expect(consumed.reduce((sum, count) => sum + count, 0)).toBe(1);
    expect((await approvals.getApproval("apr_1"))?.status).toBe("consumed");
  });

  it("hands out several grants for one action once each", { timeout: 30_000 }, async () => {
    const { approvals } = scratch.open();
    const digest = "e".repeat(64);
    // One pending request per action at a time: save, grant, repeat.
    for (const id of ["apr_1", "apr_2", "apr_3", "apr_4", "apr_5"]) {
      await approvals.saveApprovalRequest(request(id, digest));
      await approvals.grantApproval(id);
    }

    const consumed = await race(scratch.file(), digest);
    expect(consumed.reduce((sum, count) => sum + count, 0)).toBe(5);
    const records = await approvals.listApprovals();
    expect(records.map((record) => record.status)).toEqual(Array(5).fill("consumed"));
  });

  it("lets eight processes create and migrate a new database at once", { timeout: 30_000 }, async () => {
    const file = join(scratch.dir(), "fresh", "state.db");
    mkdirSync(join(scratch.dir(), "fresh"));
    expect(await race(file, "f".repeat(64), "late")).toEqual(Array(8).fill(0));
    const state = scratch.open();
    expect(await state.approvals.listApprovals()).toEqual([]);
  });
});
