import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sampleRunState } from "@agent/loop/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openSqliteState } from "../src/file/index.js";
import { SQLITE_SCHEMA_VERSION, StoreSqliteError } from "../src/index.js";
import { useScratchDirectory } from "./scratch.js";

const scratch = useScratchDirectory();

function openError(file = scratch.file()): StoreSqliteError {
  try {
    openSqliteState({ file }).close();
  } catch (error) {
    if (StoreSqliteError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("the database opened");
}

/** Bytes, modification time and the files beside it: what "left untouched" means. */
function snapshot(file: string): { bytes: Buffer; mtimeMs: number; siblings: string[] } {
  return {
    bytes: readFileSync(file),
    mtimeMs: statSync(file).mtimeMs,
    siblings: readdirSync(scratch.dir()).sort(),
  };
}

describe("opening a state database file", () => {
  it("creates a private file in WAL mode and migrates it to the current schema", () => {
    scratch.open().close();
    expect(statSync(scratch.file()).mode & 0o777).toBe(0o600);
    const database = new Database(scratch.file(), { readonly: true });
    try {
      expect(database.pragma("user_version", { simple: true })).toBe(SQLITE_SCHEMA_VERSION);
      expect(database.pragma("journal_mode", { simple: true })).toBe("wal");
      const tables = database
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all();
      expect(tables).toEqual([
        { name: "agent_run_calls" },
        { name: "agent_run_messages" },
        { name: "agent_runs" },
        { name: "approvals" },
        { name: "taint_windows" },
        { name: "tainted_files" },
      ]);
    } finally {
      database.close();
    }
  });

  it("refuses a database from a newer version and leaves it untouched", () => {
    scratch.open().close();
    const file = scratch.file();
    const database = new Database(file);
    database.pragma(`user_version = ${SQLITE_SCHEMA_VERSION + 1}`);
    database.pragma("journal_mode = DELETE");
    database.close();
    const before = snapshot(file);
    const error = openError();
    expect(error).toMatchObject({ code: "store_schema_newer", file });
    expect(error.message).toContain(`schema version ${SQLITE_SCHEMA_VERSION + 1}`);
    expect(error.message).toContain("Upgrade the agent");
    expect(snapshot(file)).toEqual(before);
  });

  it("refuses a file that is not a database and leaves it untouched", () => {
    const file = scratch.file();
    writeFileSync(file, "these bytes are not a SQLite database, and must survive\n".repeat(100));
    const before = snapshot(file);
    const error = openError();
    expect(error).toMatchObject({ code: "store_corrupt", file });
    expect(error.message).toContain("Move it aside");
    expect(snapshot(file)).toEqual(before);
  });

  it("refuses a damaged database and leaves it untouched", async () => {
    const state = scratch.open();
    for (let index = 0; index < 50; index += 1) {
      await state.runs.createRun(sampleRunState(`run_${index}`, { system: "x".repeat(500) }));
    }
    state.close();
    const file = scratch.file();
    const bytes = readFileSync(file);
    // Overwrite the second page (the first table's b-tree root) with garbage.
    bytes.fill(0xff, 4096, 8192);
    writeFileSync(file, bytes);
    const before = snapshot(file);
    expect(openError().code).toBe("store_corrupt");
    expect(snapshot(file)).toEqual(before);
  });
});

describe("the database is opened only if it is a regular file", () => {
  it("a FIFO in its place is refused at once, without blocking", () => {
    execFileSync("mkfifo", [scratch.file()]);
    const error = openError();
    expect(error).toMatchObject({ code: "store_not_regular", file: scratch.file() });
    expect(error.message).toContain("not a regular file");
  });

  it("a symbolic link in its place is refused and its target left untouched", () => {
    const precious = join(scratch.dir(), "precious.txt");
    writeFileSync(precious, "keep me");
    symlinkSync(precious, scratch.file());
    expect(openError().code).toBe("store_not_regular");
    expect(readFileSync(precious, "utf8")).toBe("keep me");
  });

  it("a dangling link in its place creates nothing at its target", () => {
    symlinkSync(join(scratch.dir(), "planted.db"), scratch.file());
    expect(openError().code).toBe("store_not_regular");
    expect(readdirSync(scratch.dir())).toEqual(["state.db"]);
  });

  it("a link or FIFO in place of SQLite's -wal or -shm file is refused too", () => {
    const precious = join(scratch.dir(), "precious.txt");
    writeFileSync(precious, "keep me");
    symlinkSync(precious, `${scratch.file()}-wal`);
    expect(openError().code).toBe("store_not_regular");
    rmSync(`${scratch.file()}-wal`);
    execFileSync("mkfifo", [`${scratch.file()}-shm`]);
    expect(openError().code).toBe("store_not_regular");
    expect(readFileSync(precious, "utf8")).toBe("keep me");
  });

  it("a missing directory is a structured error, not a crash", () => {
    const error = openError(join(scratch.dir(), "missing", "state.db"));
    expect(error.code).toBe("store_unavailable");
    expect(error.message).toContain("ENOENT");
  });
});
