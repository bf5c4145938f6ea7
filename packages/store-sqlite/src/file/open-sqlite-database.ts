import { closeSync, constants, readSync } from "node:fs";
import Database from "better-sqlite3";
import { STORE_SQLITE_ERROR_CODES, StoreSqliteError } from "../errors.js";
import { assertSchemaNotNewer, migrateSqliteDatabase } from "../migrations.js";
import { assertRegularFileIfPresent, openRegularFile } from "./regular-files.js";

/** Files SQLite keeps beside the database; each must be a plain file too, if present. */
const SQLITE_COMPANIONS = Object.freeze(["-wal", "-shm", "-journal"]);

/** How long a connection waits for another process's lock before giving up, in milliseconds. */
const BUSY_TIMEOUT_MS = 10_000;

const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

/**
 * Opens (creating if need be, mode 0600) the SQLite database `file` and brings its schema up to date.
 * A link, FIFO or other non-regular file (there or in place of SQLite's `-wal`, `-shm`, `-journal`)
 * throws `store_not_regular`, a file that is not a healthy SQLite database `store_corrupt`, and one
 * written by a newer version `store_schema_newer`; in each case the file is left exactly as it was.
 * The connection uses WAL and waits up to {@link BUSY_TIMEOUT_MS} for other processes' locks.
 */
export function openSqliteDatabase(file: string): Database.Database {
  if (!createEmptyFile(file)) assertSqliteHeader(file);
  // SQLite opens these by name and follows links: refuse anything but plain files before it does.
  for (const suffix of SQLITE_COMPANIONS) assertRegularFileIfPresent(`${file}${suffix}`);
  let database: Database.Database;
  try {
    database = new Database(file, { fileMustExist: true });
  } catch (cause) {
    throw translateError(cause, file);
  }
  try {
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Nothing below writes until the file is known to be healthy and of a version we understand.
    assertSchemaNotNewer(database);
    const check = whileBusy(() => database.pragma("quick_check", { simple: true }));
    if (check !== "ok") throw corruptError(file, new Error(`quick_check: ${String(check)}`));
    whileBusy(() => database.pragma("journal_mode = WAL"));
    // With WAL, NORMAL never corrupts the database; a power loss can only drop the last commits.
    database.pragma("synchronous = NORMAL");
    migrateSqliteDatabase(database);
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

/** Creates the file with mode 0600 unless it exists; returns whether it did. */
function createEmptyFile(file: string): boolean {
  try {
    // O_EXCL fails on anything already there, a link (even a dangling one) or a FIFO included.
    const fd = openRegularFile(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
    if (fd !== undefined) closeSync(fd);
    return true;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "EEXIST") return false;
    if (StoreSqliteError.isInstance(cause)) throw cause;
    throw new StoreSqliteError(
      STORE_SQLITE_ERROR_CODES.unavailable,
      `Cannot create the state database ${file} (${errorCode(cause)}); check its directory's permissions.`,
      { file, cause },
    );
  }
}

/**
 * Refuses a link, a FIFO or any other non-regular file (`store_not_regular`), and a non-empty file
 * that does not start like a SQLite database, before SQLite touches it.
 */
function assertSqliteHeader(file: string): void {
  const header = Buffer.alloc(SQLITE_HEADER.length);
  let bytesRead: number;
  try {
    const descriptor = openRegularFile(file, constants.O_RDONLY);
    if (descriptor === undefined) throw Object.assign(new Error("it vanished"), { code: "ENOENT" });
    try {
      bytesRead = readSync(descriptor, header, 0, header.length, 0);
    } finally {
      closeSync(descriptor);
    }
  } catch (cause) {
    if (StoreSqliteError.isInstance(cause)) throw cause;
    throw new StoreSqliteError(
      STORE_SQLITE_ERROR_CODES.unavailable,
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

function corruptError(file: string, cause: unknown): StoreSqliteError {
  return new StoreSqliteError(
    STORE_SQLITE_ERROR_CODES.corrupt,
    `The state database ${file} is not a valid SQLite database or is damaged; nothing in it was changed. Move it aside (e.g. rename it to ${file}.broken) to start with empty state, or use another database file.`,
    { file, cause },
  );
}

function translateError(cause: unknown, file: string): StoreSqliteError {
  if (StoreSqliteError.isInstance(cause)) return cause;
  const code = errorCode(cause);
  if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) return corruptError(file, cause);
  return new StoreSqliteError(
    STORE_SQLITE_ERROR_CODES.unavailable,
    `Cannot use the state database ${file} (${code}); check its permissions, or whether another process holds it locked for long.`,
    { file, cause },
  );
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : "unknown error";
}
