import { chmodSync, closeSync, constants, mkdirSync, readSync } from "node:fs";
import Database from "better-sqlite3";
import { MIGRATIONS, STATE_SCHEMA_VERSION } from "./schema-migrations.js";
import { STATE_ERROR_CODES, StateError } from "./state-error.js";
import { assertRegularStateFileIfPresent, openRegularStateFile } from "./state-files.js";
import { stateDatabasePath } from "./state-paths.js";

/** Files SQLite keeps beside the database; each must be a plain file too, if present. */
const SQLITE_COMPANIONS = Object.freeze(["-wal", "-shm", "-journal"]);

/** How long a connection waits for another process's lock before giving up, in milliseconds. */
const BUSY_TIMEOUT_MS = 10_000;

const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

/**
 * Creates the state directory (mode 0700) if it does not exist yet; an existing directory keeps its
 * mode. Call it before anything else writes there (e.g. the audit sink), so the directory is private.
 */
export function ensureStateDirectory(stateDir: string): void {
  try {
    const created = mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    // The umask may have stripped bits from the requested mode; set it exactly.
    if (created !== undefined) chmodSync(stateDir, 0o700);
  } catch (cause) {
    throw new StateError(
      STATE_ERROR_CODES.unavailable,
      `Cannot create the state directory ${stateDir} (${errorCode(cause)}); choose a writable state directory.`,
      { file: stateDir, cause },
    );
  }
}

/**
 * Opens (creating if need be, mode 0600) `state.db` in `stateDir` and brings its schema up to date.
 * A file that is not a healthy SQLite database throws `state_corrupt` and one written by a newer
 * version throws `state_too_new`; in both cases the file is left exactly as it was. The connection
 * uses WAL and waits up to {@link BUSY_TIMEOUT_MS} for other processes' locks.
 */
export function openStateDatabase(stateDir: string): Database.Database {
  ensureStateDirectory(stateDir);
  const file = stateDatabasePath(stateDir);
  if (!createEmptyFile(file)) assertSqliteHeader(file);
  // SQLite opens these by name and follows links: refuse anything but plain files before it does.
  for (const suffix of SQLITE_COMPANIONS) assertRegularStateFileIfPresent(`${file}${suffix}`);
  let database: Database.Database;
  try {
    database = new Database(file, { fileMustExist: true });
  } catch (cause) {
    throw translateError(cause, file);
  }
  try {
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Nothing below writes until the file is known to be healthy and of a version we understand.
    const version = readUserVersion(database);
    if (version > STATE_SCHEMA_VERSION) {
      throw new StateError(
        STATE_ERROR_CODES.tooNew,
        `The state database ${file} has schema version ${version}, but this agent understands up to ${STATE_SCHEMA_VERSION}; it was left untouched. Upgrade the agent, or use another state directory.`,
        { file },
      );
    }
    const check = whileBusy(() => database.pragma("quick_check", { simple: true }));
    if (check !== "ok") throw corruptError(file, new Error(`quick_check: ${String(check)}`));
    whileBusy(() => database.pragma("journal_mode = WAL"));
    // With WAL, NORMAL never corrupts the database; a power loss can only drop the last commits.
    database.pragma("synchronous = NORMAL");
    migrate(database);
    return database;
  } catch (cause) {
    database.close();
    throw translateError(cause, file);
  }
}

// Switching a new database to WAL while other processes open it can fail with SQLITE_BUSY at once,
// without waiting for the busy timeout: such steps are retried, briefly, before they count as failed.
function whileBusy<T>(step: () => T): T {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return step();
    } catch (error) {
      if ((error as { code?: unknown }).code !== "SQLITE_BUSY" || attempt >= 50) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 * attempt);
    }
  }
}

function migrate(database: Database.Database): void {
  // IMMEDIATE takes the write lock first, so two processes opening a new file migrate it once.
  database
    .transaction(() => {
      const current = readUserVersion(database);
      for (const migration of MIGRATIONS) {
        if (migration.version <= current) continue;
        database.exec(migration.sql);
        database.pragma(`user_version = ${migration.version}`);
      }
    })
    .immediate();
}

function readUserVersion(database: Database.Database): number {
  return Number(database.pragma("user_version", { simple: true }));
}

/** Creates the file with mode 0600 unless it exists; returns whether it did. */
function createEmptyFile(file: string): boolean {
  try {
    // O_EXCL fails on anything already there, a link (even a dangling one) or a FIFO included.
    const fd = openRegularStateFile(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    if (fd !== undefined) closeSync(fd);
    return true;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "EEXIST") return false;
    if (cause instanceof StateError) throw cause;
    throw new StateError(
      STATE_ERROR_CODES.unavailable,
      `Cannot create the state database ${file} (${errorCode(cause)}); check the state directory's permissions.`,
      { file, cause },
    );
  }
}

/**
 * Refuses a link, a FIFO or any other non-regular file (`state_not_regular`), and a non-empty file
 * that does not start like a SQLite database, before SQLite touches it.
 */
function assertSqliteHeader(file: string): void {
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let bytesRead: number;
  try {
    const descriptor = openRegularStateFile(file, constants.O_RDONLY);
    if (descriptor === undefined) throw Object.assign(new Error("it vanished"), { code: "ENOENT" });
    try {
      bytesRead = readSync(descriptor, header, 0, header.length, 0);
    } finally {
      closeSync(descriptor);
    }
  } catch (cause) {
    if (cause instanceof StateError) throw cause;
    throw new StateError(
      STATE_ERROR_CODES.unavailable,
      `Cannot read the state database ${file} (${errorCode(cause)}); check its permissions.`,
      { file, cause },
    );
  }
  // An empty file is what SQLite itself would treat as a new database.
  if (bytesRead === 0) return;
  if (bytesRead < header.length || !header.equals(SQLITE_HEADER)) {
    throw corruptError(file, new Error("the file does not start with the SQLite header"));
  }
}

function corruptError(file: string, cause: unknown): StateError {
  return new StateError(
    STATE_ERROR_CODES.corrupt,
    `The state database ${file} is not a valid SQLite database or is damaged; nothing in it was changed. Move it aside (e.g. rename it to ${file}.broken) to start with empty state, or use another state directory.`,
    { file, cause },
  );
}

function translateError(cause: unknown, file: string): StateError {
  if (cause instanceof StateError) return cause;
  const code = errorCode(cause);
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) return corruptError(file, cause);
  return new StateError(
    STATE_ERROR_CODES.unavailable,
    `Cannot use the state database ${file} (${code}); check its permissions, or whether another process holds it locked for long.`,
    { file, cause },
  );
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : "unknown error";
}
