import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { followAuditLog, readAuditLog, SqliteStateStore, StateError } from "../src/state/index.js";

let base: string;
let stateDir: string;
let precious: string;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "agent-state-kind-"));
  stateDir = join(base, "state");
  mkdirSync(stateDir);
  precious = join(base, "precious.txt");
  writeFileSync(precious, "keep me");
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function openError(): StateError {
  try {
    SqliteStateStore.open(stateDir).close();
  } catch (error) {
    if (error instanceof StateError) return error;
    throw error;
  }
  throw new Error("the state opened");
}

describe("the state database is opened only if it is a regular file", () => {
  it("a FIFO named state.db is refused at once, without blocking", () => {
    execFileSync("mkfifo", [join(stateDir, "state.db")]);
    const error = openError();
    expect(error.code).toBe("state_not_regular");
    expect(error.message).toContain("not a regular file");
  });

  it("a link in place of SQLite's -wal file is refused too, its target left untouched", () => {
    // The other kinds of file are @agent/store-sqlite's tests; here, that the CLI says it with its code.
    symlinkSync(precious, join(stateDir, "state.db-wal"));
    expect(openError().code).toBe("state_not_regular");
    expect(readFileSync(precious, "utf8")).toBe("keep me");
  });
});

describe("the audit reader opens only a regular file", () => {
  it("refuses a FIFO and a link, reading and following, without blocking", async () => {
    const audit = join(stateDir, "audit.jsonl");
    execFileSync("mkfifo", [audit]);
    await expect(readAuditLog(audit).next()).rejects.toMatchObject({ code: "state_not_regular" });
    const follower = followAuditLog(audit, { signal: new AbortController().signal, fromStart: true });
    await expect(follower.next()).rejects.toMatchObject({ code: "state_not_regular" });
    rmSync(audit);
    symlinkSync(precious, audit);
    await expect(readAuditLog(audit).next()).rejects.toMatchObject({ code: "state_not_regular" });
  });
});
