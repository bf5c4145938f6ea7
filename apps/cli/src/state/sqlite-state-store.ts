import { randomUUID } from "node:crypto";
import type {
  SqliteApprovalStore,
  SqliteRunStore,
  SqliteState,
  SqliteTaintedFileStore,
} from "@agent/store-sqlite";
import { openSqliteState } from "@agent/store-sqlite/file";
import type { JsonValue } from "@agent/tools";
import { currentRunOwner, type RunOwner } from "./run-owner.js";
import { ensureStateDirectory } from "./state-directory.js";
import { asStateErrors, STATE_ERROR_CODES, StateError } from "./state-error.js";
import { stateDatabasePath } from "./state-paths.js";

/** Where a run stands: `waiting` for an approval, `running`, or finished one of three ways. */
export type RunStatus = "waiting" | "running" | "completed" | "failed" | "cancelled";

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
  /** The process running a `running` run; absent in any other status, and for runs of schema version 1. */
  owner?: RunOwner;
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
  /** Defaults to `running` (owned by this store's process). */
  status?: RunStatus;
  requestId?: string;
}

/** The fields of a run that may change after it is created. */
export interface RunPatch {
  /** `running` makes this store's process the owner; any other status clears the owner. */
  status?: RunStatus;
  toolFingerprint?: string;
  requestId?: string;
  outcome?: JsonValue;
}

/** Options of {@link SqliteStateStore.open}. */
export interface SqliteStateStoreOptions {
  /** The clock for every timestamp the store sets; defaults to the system clock. */
  now?: () => Date;
  /** The process recorded as the owner of the runs this store sets `running`; defaults to this one. */
  owner?: RunOwner;
  /** Who takes this process's approval decisions (the OS user), recorded as each one's `decidedBy`; none by default. */
  decidedBy?: string;
}

/** A run as both state databases keep it (SQLite and PostgreSQL share the columns). */
export interface RunRow {
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
  owner_pid: number | null;
  owner_host: string | null;
}

/**
 * The CLI's durable state in `<stateDir>/state.db`: the stores of `@agent/store-sqlite` (approvals,
 * agent runs, tainted files), plus the one-call runs of `agent call` in the table `runs` beside them.
 * Several processes may hold it open at once; run methods are synchronous (SQLite answers at once),
 * approval methods async as `ApprovalStore` requires.
 */
export class SqliteStateStore {
  /** The state database file. */
  readonly file: string;
  /** Approval requests and grants, implementing `ApprovalStore` from `@agent/policy`. */
  readonly approvals: SqliteApprovalStore;
  /** Agent runs (`agent run`), implementing `RunStore` from `@agent/loop`. */
  readonly agentRuns: SqliteRunStore;
  /** The files tainted runs wrote (the flow guard), implementing `TaintedFileStore` from `@agent/policy`. */
  readonly taintedFiles: SqliteTaintedFileStore;
  readonly #state: SqliteState;
  readonly #database: SqliteState["database"];
  readonly #now: () => Date;
  readonly #owner: RunOwner;

  private constructor(state: SqliteState, file: string, options: SqliteStateStoreOptions) {
    this.#state = state;
    this.#database = state.database;
    this.file = file;
    this.#now = options.now ?? (() => new Date());
    this.#owner = options.owner ?? currentRunOwner();
    this.approvals = state.approvals;
    this.agentRuns = state.runs;
    this.taintedFiles = state.taintedFiles;
  }

  /**
   * Opens the state in `stateDir`, creating the directory (0700) and database (0600) if need be.
   * Throws `StateError` (`state_corrupt`, `state_too_new`, `state_unavailable`, `state_not_regular`)
   * and never resets a file.
   */
  static open(stateDir: string, options: SqliteStateStoreOptions = {}): SqliteStateStore {
    ensureStateDirectory(stateDir);
    const file = stateDatabasePath(stateDir);
    const state = asStateErrors(() =>
      openSqliteState({
        file,
        ...(options.now && { now: options.now }),
        ...(options.decidedBy !== undefined && { decidedBy: options.decidedBy }),
      }),
    );
    return new SqliteStateStore(state, file, options);
  }

  /** Records a new run; throws `StateError` (`run_exists`) if its id is taken. */
  createRun(run: NewRun): RunRecord {
    const now = this.#now().toISOString();
    const id = run.id ?? `run_${randomUUID()}`;
    const status = run.status ?? "running";
    const owner = status === "running" ? this.#owner : undefined;
    try {
      this.#database
        .prepare(
          `INSERT INTO runs (id, created_at, updated_at, status, tool_name, call_id, input_json, tool_fingerprint, cwd, request_id, owner_pid, owner_host)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          id,
          now,
          now,
          status,
          run.toolName,
          run.callId ?? `call_${randomUUID()}`,
          JSON.stringify(run.input),
          run.toolFingerprint ?? null,
          run.cwd,
          run.requestId ?? null,
          owner?.pid ?? null,
          owner?.host ?? null,
        );
    } catch (cause) {
      if ((cause as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
        throw new StateError(
          STATE_ERROR_CODES.runExists,
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
    return row && runFromRow(row);
  }

  /** Changes a run's fields and returns it; throws `StateError` (`run_not_found`) for an unknown id. */
  updateRun(id: string, patch: RunPatch): RunRecord {
    if (this.#update(id, patch) === 0) throw runNotFound(id);
    return this.#mustGet(id);
  }

  /**
   * Claims a run for this store's process: sets it `running`, owned by this process, only if its
   * status and owner are still those of `seen` (compare-and-set across processes). Returns the run
   * as claimed, or `undefined` if another process changed or claimed it since it was read. Throws
   * `run_not_found` for an unknown id. Two resumes of one run can thus never both start it.
   */
  claimRun(seen: Pick<RunRecord, "id" | "status" | "owner">): RunRecord | undefined {
    const claim = this.#database.transaction((): RunRecord | undefined => {
      if (this.#update(seen.id, { status: "running" }, seen) === 1) return this.#mustGet(seen.id);
      if (!this.getRun(seen.id)) throw runNotFound(seen.id);
      return undefined;
    });
    return claim.immediate();
  }

  /** Runs, newest first, optionally only those with one status and at most `limit` of them. */
  listRuns(filter: { status?: RunStatus; limit?: number } = {}): RunRecord[] {
    const where = filter.status === undefined ? "" : "WHERE status = @status";
    const rows = this.#database
      .prepare(`SELECT * FROM runs ${where} ORDER BY created_at DESC, rowid DESC LIMIT @limit`)
      .all({ ...(filter.status === undefined ? {} : { status: filter.status }), limit: filter.limit ?? -1 });
    return (rows as RunRow[]).map(runFromRow);
  }

  /** Closes the connection; later calls fail. Closing twice is harmless. */
  close(): void {
    this.#state.close();
  }

  #update(id: string, patch: RunPatch, expected?: Pick<RunRecord, "status" | "owner">): number {
    const assignments = ["updated_at = @updated_at"];
    const values: Record<string, string | number | null> = { id, updated_at: this.#now().toISOString() };
    if (patch.status !== undefined) {
      const owner = patch.status === "running" ? this.#owner : undefined;
      assignments.push("status = @status", "owner_pid = @owner_pid", "owner_host = @owner_host");
      values.status = patch.status;
      values.owner_pid = owner?.pid ?? null;
      values.owner_host = owner?.host ?? null;
    }
    if (patch.toolFingerprint !== undefined) assignments.push("tool_fingerprint = @tool_fingerprint");
    if (patch.requestId !== undefined) assignments.push("request_id = @request_id");
    if (patch.outcome !== undefined) assignments.push("outcome_json = @outcome_json");
    if (patch.toolFingerprint !== undefined) values.tool_fingerprint = patch.toolFingerprint;
    if (patch.requestId !== undefined) values.request_id = patch.requestId;
    if (patch.outcome !== undefined) values.outcome_json = JSON.stringify(patch.outcome);
    let guard = "";
    if (expected !== undefined) {
      // IS, not =: an absent owner is NULL, and NULL = NULL is not true.
      guard =
        " AND status = @expected_status AND owner_pid IS @expected_pid AND owner_host IS @expected_host";
      values.expected_status = expected.status;
      values.expected_pid = expected.owner?.pid ?? null;
      values.expected_host = expected.owner?.host ?? null;
    }
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
  return new StateError(STATE_ERROR_CODES.runNotFound, `No run has id "${id}"; list runs to find it.`);
}

/** The {@link RunRecord} of a stored row. */
export function runFromRow(row: RunRow): RunRecord {
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
  if (row.owner_pid !== null && row.owner_host !== null)
    run.owner = { pid: row.owner_pid, host: row.owner_host };
  return run;
}
