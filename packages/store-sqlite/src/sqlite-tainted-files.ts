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
import type Database from "better-sqlite3";

/**
 * The flow guard's {@link TaintedFileStore} and {@link TaintWindowStore} in the state database: marks
 * and windows outlive the run that made them.
 */
export class SqliteTaintedFileStore implements TaintedFileStore, TaintWindowStore {
  readonly #statements: ReturnType<typeof prepareStatements>;

  /** Wraps an open, migrated state database. */
  constructor(database: Database.Database) {
    this.#statements = prepareStatements(database);
  }

  async markTainted(file: TaintedFile): Promise<void> {
    this.#statements.mark.run(taintedFileRow(file));
  }

  async clearTaint(path: string): Promise<void> {
    this.#statements.clear.run(path);
  }

  async findTainted(paths: readonly string[]): Promise<TaintedFile[]> {
    return paths.flatMap((path) => {
      const row = this.#statements.byPath.get(path) as TaintedFileRow | undefined;
      return row ? [taintedFileOfRow(row)] : [];
    });
  }

  async findTaintedUnder(root: string): Promise<TaintedFile[]> {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    // Every path starting with "<root>/" sorts between it and "<root>0" ("0" follows "/").
    const rows = this.#statements.under.all({ prefix, after: `${prefix.slice(0, -1)}0` }) as TaintedFileRow[];
    return rows.map(taintedFileOfRow);
  }

  async openWindow(window: Omit<TaintWindow, "endedAt">): Promise<void> {
    this.#statements.openWindow.run({
      id: window.id,
      run_id: window.runId,
      sources_json: JSON.stringify(window.sources),
      started_at: window.startedAt,
    });
  }

  async closeWindow(id: string, endedAt: number): Promise<void> {
    this.#statements.closeWindow.run(endedAt, id);
  }

  async listWindows(): Promise<TaintWindow[]> {
    return (this.#statements.windows.all() as TaintWindowRow[]).map(taintWindowOfRow);
  }

  async windowAt(changedAtMs: number): Promise<TaintWindow | undefined> {
    const row = this.#statements.windowAt.get({
      changed_at: Math.floor(changedAtMs),
      slack: WINDOW_SLACK_MS,
      unclosed: UNCLOSED_WINDOW_MS,
    }) as TaintWindowRow | undefined;
    return row && taintWindowOfRow(row);
  }
}

function prepareStatements(database: Database.Database) {
  return {
    mark: database.prepare(
      `INSERT INTO tainted_files (path, sha256, run_id, sources_json, marked_at)
       VALUES (@path, @sha256, @run_id, @sources_json, @marked_at)
       ON CONFLICT (path) DO UPDATE SET sha256 = excluded.sha256, run_id = excluded.run_id,
         sources_json = excluded.sources_json, marked_at = excluded.marked_at`,
    ),
    clear: database.prepare("DELETE FROM tainted_files WHERE path = ?"),
    byPath: database.prepare("SELECT * FROM tainted_files WHERE path = ?"),
    // A range, not LIKE: LIKE ignores case and gives % and _ in a path a meaning.
    under: database.prepare(
      "SELECT * FROM tainted_files WHERE path >= @prefix AND path < @after ORDER BY path",
    ),
    openWindow: database.prepare(
      "INSERT INTO taint_windows (id, run_id, sources_json, started_at) VALUES (@id, @run_id, @sources_json, @started_at)",
    ),
    closeWindow: database.prepare("UPDATE taint_windows SET ended_at = ? WHERE id = ?"),
    windows: database.prepare("SELECT * FROM taint_windows ORDER BY started_at"),
    // The same test as windowCovers in @agent/policy, in SQL.
    windowAt: database.prepare(
      `SELECT * FROM taint_windows
       WHERE started_at - @slack <= @changed_at
         AND COALESCE(ended_at, started_at + @unclosed) + @slack >= @changed_at
       ORDER BY started_at LIMIT 1`,
    ),
  };
}
