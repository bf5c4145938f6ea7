import type { TaintedFile, TaintedFileStore } from "@agent/policy";
import type { FlowSource } from "@agent/tools";
import type Database from "better-sqlite3";

interface TaintedFileRow {
  path: string;
  sha256: string;
  run_id: string;
  sources_json: string;
  marked_at: string;
}

/** The flow guard's {@link TaintedFileStore} in the state database: marks outlive the run that made them. */
export class SqliteTaintedFileStore implements TaintedFileStore {
  readonly #statements: ReturnType<typeof prepareStatements>;

  /** Wraps an open, migrated state database. */
  constructor(database: Database.Database) {
    this.#statements = prepareStatements(database);
  }

  async markTainted(file: TaintedFile): Promise<void> {
    this.#statements.mark.run({
      path: file.path,
      sha256: file.sha256,
      run_id: file.runId,
      sources_json: JSON.stringify(file.sources),
      marked_at: file.markedAt,
    });
  }

  async clearTaint(path: string): Promise<void> {
    this.#statements.clear.run(path);
  }

  async findTainted(paths: readonly string[]): Promise<TaintedFile[]> {
    return paths.flatMap((path) => {
      const row = this.#statements.byPath.get(path) as TaintedFileRow | undefined;
      return row
        ? [
            {
              path: row.path,
              sha256: row.sha256,
              runId: row.run_id,
              sources: JSON.parse(row.sources_json) as FlowSource[],
              markedAt: row.marked_at,
            },
          ]
        : [];
    });
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
  };
}
