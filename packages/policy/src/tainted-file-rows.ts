import type { FlowSource } from "@agent/tools";
import type { TaintedFile, TaintWindow } from "./tainted-files.js";

/** A {@link TaintedFile} as SQL stores keep it (one table, these columns): the CLI's SQLite, PostgreSQL. */
export interface TaintedFileRow {
  path: string;
  sha256: string;
  run_id: string;
  sources_json: string;
  marked_at: string;
}

/** A {@link TaintWindow} as SQL stores keep it; times in milliseconds (a driver may hand BIGINTs back as text). */
export interface TaintWindowRow {
  id: string;
  run_id: string;
  sources_json: string;
  started_at: number | string;
  ended_at: number | string | null;
}

/** The row of a {@link TaintedFile}. */
export function taintedFileRow(file: TaintedFile): TaintedFileRow {
  return {
    path: file.path,
    sha256: file.sha256,
    run_id: file.runId,
    sources_json: JSON.stringify(file.sources),
    marked_at: file.markedAt,
  };
}

/** The {@link TaintedFile} of a row. */
export function taintedFileOfRow(row: TaintedFileRow): TaintedFile {
  return {
    path: row.path,
    sha256: row.sha256,
    runId: row.run_id,
    sources: JSON.parse(row.sources_json) as FlowSource[],
    markedAt: row.marked_at,
  };
}

/** The {@link TaintWindow} of a row. */
export function taintWindowOfRow(row: TaintWindowRow): TaintWindow {
  return {
    id: row.id,
    runId: row.run_id,
    sources: JSON.parse(row.sources_json) as FlowSource[],
    startedAt: Number(row.started_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
  };
}
