import {
  type TaintedFile,
  type TaintedFileRow,
  type TaintedFileStore,
  type TaintWindow,
  type TaintWindowRow,
  type TaintWindowStore,
  taintedFileOfRow,
  taintedFileRow,
  taintWindowOfRow,
  UNCLOSED_WINDOW_MS,
  WINDOW_SLACK_MS,
} from "@agent/policy";
import type { Pool } from "pg";
import { translateDatabaseError } from "./errors.js";

/**
 * The flow guard's {@link TaintedFileStore} and {@link TaintWindowStore} in PostgreSQL: the files
 * tainted runs wrote, seen by every machine that shares the database (a workspace on a shared disk
 * is tainted for all of them).
 */
export class PostgresTaintedFileStore implements TaintedFileStore, TaintWindowStore {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  async markTainted(file: TaintedFile): Promise<void> {
    const row = taintedFileRow(file);
    await this.#query(
      "mark a tainted file",
      `INSERT INTO agent_tainted_files (path, sha256, run_id, sources_json, marked_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (path) DO UPDATE SET sha256 = EXCLUDED.sha256, run_id = EXCLUDED.run_id,
         sources_json = EXCLUDED.sources_json, marked_at = EXCLUDED.marked_at`,
      [row.path, row.sha256, row.run_id, row.sources_json, row.marked_at],
    );
  }

  async clearTaint(path: string): Promise<void> {
    await this.#query("clear a tainted file", "DELETE FROM agent_tainted_files WHERE path = $1", [path]);
  }

  async findTainted(paths: readonly string[]): Promise<TaintedFile[]> {
    if (paths.length === 0) return [];
    const rows = await this.#query<TaintedFileRow>(
      "look up tainted files",
      "SELECT * FROM agent_tainted_files WHERE path = ANY($1::text[])",
      [[...paths]],
    );
    return rows.map(taintedFileOfRow);
  }

  async findTaintedUnder(root: string): Promise<TaintedFile[]> {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    // starts_with, not LIKE: a path's own % and _ mean nothing here.
    const rows = await this.#query<TaintedFileRow>(
      "look up tainted files",
      "SELECT * FROM agent_tainted_files WHERE starts_with(path, $1) ORDER BY path",
      [prefix],
    );
    return rows.map(taintedFileOfRow);
  }

  async openWindow(window: Omit<TaintWindow, "endedAt">): Promise<void> {
    await this.#query(
      "open a taint window",
      "INSERT INTO agent_taint_windows (id, run_id, sources_json, started_at) VALUES ($1, $2, $3, $4)",
      [window.id, window.runId, JSON.stringify(window.sources), window.startedAt],
    );
  }

  async closeWindow(id: string, endedAt: number): Promise<void> {
    await this.#query("close a taint window", "UPDATE agent_taint_windows SET ended_at = $1 WHERE id = $2", [
      endedAt,
      id,
    ]);
  }

  async listWindows(): Promise<TaintWindow[]> {
    const rows = await this.#query<TaintWindowRow>(
      "list taint windows",
      "SELECT * FROM agent_taint_windows ORDER BY started_at",
      [],
    );
    return rows.map(taintWindowOfRow);
  }

  async windowAt(changedAtMs: number): Promise<TaintWindow | undefined> {
    // The same test as windowCovers in @agent/policy, in SQL.
    const rows = await this.#query<TaintWindowRow>(
      "look up taint windows",
      `SELECT * FROM agent_taint_windows
       WHERE started_at - $2 <= $1 AND COALESCE(ended_at, started_at + $3) + $2 >= $1
       ORDER BY started_at LIMIT 1`,
      [Math.floor(changedAtMs), WINDOW_SLACK_MS, UNCLOSED_WINDOW_MS],
    );
    return rows[0] && taintWindowOfRow(rows[0]);
  }

  async #query<Row extends object>(doing: string, sql: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.#pool.query<Row>(sql, values)).rows;
    } catch (error) {
      translateDatabaseError(error, doing);
    }
  }
}
