import type { SqliteState, SqliteStateOptions } from "../sqlite-state.js";
import { createSqliteState } from "../sqlite-state.js";
import { openSqliteDatabase } from "./open-sqlite-database.js";

/** Options of {@link openSqliteState}. */
export interface OpenSqliteStateOptions extends SqliteStateOptions {
  /** The database file; created (mode 0600) if absent. Its directory must exist: choose its mode yourself. */
  file: string;
}

/**
 * Opens (creating if need be) a state database file and returns its stores: see
 * {@link openSqliteDatabase} for what is refused and how the connection behaves. Throws
 * `StoreSqliteError` and never resets a file.
 */
export function openSqliteState(options: OpenSqliteStateOptions): SqliteState {
  const { file, ...storeOptions } = options;
  const database = openSqliteDatabase(file);
  try {
    return createSqliteState(database, storeOptions);
  } catch (error) {
    database.close();
    throw error;
  }
}
