import { randomUUID } from "node:crypto";
import type { JsonValue } from "@agent/tools";
import type Database from "better-sqlite3";
import { openStateDatabase } from "./open-state-database.js";
import { SqliteApprovalStore } from "./sqlite-approval-store.js";
import { StateError } from "./state-error.js";
import { stateDatabasePath } from "./state-paths.js";

/** Where a run stands: `waiting` for an approval, `running`, or finished one of three ways. */
export type RunStatus = "waiting" | "running" | "completed" | "failed" | "cancelled";

/** Every {@link RunStatus}. */
export const RUN_STATUSES: readonly RunStatus[] = ["waiting", "running", "completed", "failed", "cancelled"];

/** One `agent call`: a single tool call, what it was asked with and how it ended. */
export interface RunRecord {
  id: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, the last change. */
  updatedAt: string;
  status: RunStatus;
  toolName: string;
  callId: string;
  /** The call's input as given (it is replayed when a waiting run resumes). */
  input: JsonValue;
  /** The tool definition's fingerprint when the call was made, if the tool was found. */
  toolFingerprint?: string;
  cwd: string;
  /** The approval request a `waiting` run waits for. */
  requestId?: string;
  /** The final observation (or any JSON the caller records as the outcome). */
  outcome?: JsonValue;
}

/** What {@link SqliteStateStore.createRun} needs; the rest is filled in. */
export interface NewRun {
  /** Defaults to `run_<uuid>`. */
  id?: string;
  toolName: string;
  input: JsonValue;
  cwd: string;
  /** Defaults to `call_<uuid>`. */
  callId?: string;
  toolFingerprint?: string;
  /** Defaults to `running`. */
  status?: RunStatus;
  requestId?: string;
}

/** The fields of a run that may change after it is created. */
export interface RunPatch {
  status?: RunStatus;
  toolFingerprint?: string;
  requestId?: string;
  outcome?: JsonValue;
}

/** Options of {@link SqliteStateStore.open}. */
export interface SqliteStateStoreOptions {
  /** The clock for every timestamp the store sets; defaults to the system clock. */
  now?: () => Date;
}

interface RunRow {
  id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  tool_name: string;
  call_id: string;
  input_json: string;
  tool_fingerprint: string | null;
  cwd: string;
  request_id: string | null;
  outcome_json: string | null;
}

/**
 * The CLI's durable state in `<stateDir>/state.db`: runs, plus approval requests and one-shot grants
 * through {@link SqliteStateStore.approvals}. Several processes may hold it open at once; run methods
 * are synchronous (SQLite answers at once), approval methods async as `ApprovalStore` requires.
 */
export class SqliteStateStore {
  /** The state database file. */
  readonly file: string;
  /** Approval requests and grants, implementing `ApprovalStore` from `@agent/policy`. */
  readonly approvals: SqliteApprovalStore;
  readonly #database: Database.Database;
  readonly #now: () => Date;

  private constructor(database: Database.Database, file: string, now: () => Date) {
    this.#database = database;
    this.file = file;
    this.#now = now;
    this.approvals = new SqliteApprovalStore(database, now);
  }

  /**
   * Opens the state in `stateDir`, creating the directory (0700) and database (0600) if need be.
   * Throws `StateError` (`state_corrupt`, `state_too_new`, `state_unavailable`) and never resets a file.
   */
  static open(stateDir: string, options: SqliteStateStoreOptions = {}): SqliteStateStore {
    const database = openStateDatabase(stateDir);
    return new SqliteStateStore(database, stateDatabasePath(stateDir), options.now ?? (() => new Date()));
  }

  /** Records a new run; throws `StateError` (`run_exists`) if its id is taken. */
  createRun(run: NewRun): RunRecord {
    const now = this.#now().toISOString();
    const id = run.id ?? `run_${randomUUID()}`;
    try {
      this.#database
        .prepare(
          `INSERT INTO runs (id, created_at, updated_at, status, tool_name, call_id, input_json, tool_fingerprint, cwd, request_id)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          now,
          now,
          run.status ?? "running",
          run.toolName,
          run.callId ?? `call_${randomUUID()}`,
          JSON.stringify(run.input),
          run.toolFingerprint ?? null,
          run.cwd,
          run.requestId ?? null,
        );
    } catch (cause) {
      if ((cause as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
        throw new StateError(
          "run_exists",
          `A run with id "${id}" already exists; give each run a fresh id.`,
          {
            cause,
          },
        );
      }
      throw cause;
    }
    return this.#mustGet(id);
  }

  /** The run with this id, if any. */
  getRun(id: string): RunRecord | undefined {
    const row = this.#database.prepare("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | undefined;
    return row && toRun(row);
  }

  /** Changes a run's fields and returns it; throws `StateError` (`run_not_found`) for an unknown id. */
  updateRun(id: string, patch: RunPatch): RunRecord {
    if (this.#update(id, patch) === 0) throw runNotFound(id);
    return this.#mustGet(id);
  }

  /**
   * Changes a run only if it is still in status `from` (compare-and-set across processes): the run
   * as changed, or `undefined` if it is in another status. Throws `run_not_found` for an unknown id.
   * Use it to claim a waiting run so that two resumes cannot both start it.
   */
  transitionRun(id: string, from: RunStatus, patch: RunPatch & { status: RunStatus }): RunRecord | undefined {
    const transition = this.#database.transaction((): RunRecord | undefined => {
      if (this.#update(id, patch, from) === 1) return this.#mustGet(id);
      if (!this.getRun(id)) throw runNotFound(id);
      return undefined;
    });
    return transition.immediate();
  }

  /** Runs, newest first, optionally only those with one status and at most `limit` of them. */
  listRuns(filter: { status?: RunStatus; limit?: number } = {}): RunRecord[] {
    const where = filter.status === undefined ? "" : "WHERE status = @status";
    const rows = this.#database
      .prepare(`SELECT * FROM runs ${where} ORDER BY created_at DESC, rowid DESC LIMIT @limit`)
      .all({ ...(filter.status === undefined ? {} : { status: filter.status }), limit: filter.limit ?? -1 });
    return (rows as RunRow[]).map(toRun);
  }

  /** Closes the connection; later calls fail. Closing twice is harmless. */
  close(): void {
    if (this.#database.open) this.#database.close();
  }

  #update(id: string, patch: RunPatch, from?: RunStatus): number {
    const assignments = ["updated_at = @updated_at"];
    const values: Record<string, string | null> = { id, updated_at: this.#now().toISOString() };
    if (patch.status !== undefined) assignments.push("status = @status");
    if (patch.toolFingerprint !== undefined) assignments.push("tool_fingerprint = @tool_fingerprint");
    if (patch.requestId !== undefined) assignments.push("request_id = @request_id");
    if (patch.outcome !== undefined) assignments.push("outcome_json = @outcome_json");
    if (patch.status !== undefined) values.status = patch.status;
    if (patch.toolFingerprint !== undefined) values.tool_fingerprint = patch.toolFingerprint;
    if (patch.requestId !== undefined) values.request_id = patch.requestId;
    if (patch.outcome !== undefined) values.outcome_json = JSON.stringify(patch.outcome);
    const guard = from === undefined ? "" : " AND status = @from";
    if (from !== undefined) values.from = from;
    return this.#database
      .prepare(`UPDATE runs SET ${assignments.join(", ")} WHERE id = @id${guard}`)
      .run(values).changes;
  }

  #mustGet(id: string): RunRecord {
    const run = this.getRun(id);
    if (!run) throw runNotFound(id);
    return run;
  }
}

function runNotFound(id: string): StateError {
  return new StateError("run_not_found", `No run has id "${id}"; list runs to find it.`);
}

function toRun(row: RunRow): RunRecord {
  const run: RunRecord = {
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: row.status,
    toolName: row.tool_name,
    callId: row.call_id,
    input: JSON.parse(row.input_json) as JsonValue,
    cwd: row.cwd,
  };
  if (row.tool_fingerprint !== null) run.toolFingerprint = row.tool_fingerprint;
  if (row.request_id !== null) run.requestId = row.request_id;
  if (row.outcome_json !== null) run.outcome = JSON.parse(row.outcome_json) as JsonValue;
  return run;
}
