import type Database from "better-sqlite3";
import { migrateSqliteDatabase } from "./migrations.js";
import { SqliteApprovalStore, type SqliteApprovalStoreOptions } from "./sqlite-approval-store.js";
import { SqliteRunStore } from "./sqlite-run-store.js";
import { SqliteTaintedFileStore } from "./sqlite-tainted-files.js";

/** Options of {@link createSqliteState}: the clock and who decides, for the approval store. */
export type SqliteStateOptions = SqliteApprovalStoreOptions;

/** The stores of one SQLite state database, migrated and ready. */
export interface SqliteState {
  /** Approval requests and one-shot grants (`ApprovalStore` of `@agent/policy`). */
  readonly approvals: SqliteApprovalStore;
  /** Agent runs (`RunStore` of `@agent/loop`). */
  readonly runs: SqliteRunStore;
  /** The files tainted runs wrote, and when they ran commands (the flow guard of `@agent/policy`). */
  readonly taintedFiles: SqliteTaintedFileStore;
  /** The connection the stores share, for an application's own tables beside them. */
  readonly database: Database.Database;
  /** Closes the connection; later calls of the stores fail. Closing twice is harmless. */
  close(): void;
}

/**
 * The stores of an open `better-sqlite3` database (a file, or `:memory:`), after bringing its schema
 * up to date. Throws `StoreSqliteError` `store_schema_newer`, writing nothing, for a database of a
 * newer version. To open a file safely (plain files only, WAL, busy timeout), use `openSqliteState`
 * of `@agent/store-sqlite/file`.
 */
export function createSqliteState(
  database: Database.Database,
  options: SqliteStateOptions = {},
): SqliteState {
  migrateSqliteDatabase(database);
  return {
    approvals: new SqliteApprovalStore(database, options),
    runs: new SqliteRunStore(database),
    taintedFiles: new SqliteTaintedFileStore(database),
    database,
    close() {
      if (database.open) database.close();
    },
  };
}
