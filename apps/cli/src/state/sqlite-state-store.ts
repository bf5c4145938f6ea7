import type {
  SqliteApprovalStore,
  SqliteRunStore,
  SqliteState,
  SqliteTaintedFileStore,
} from "@agent/store-sqlite";
import { openSqliteState } from "@agent/store-sqlite/file";
import { ensureStateDirectory } from "./state-directory.js";
import { asStateErrors } from "./state-error.js";
import { stateDatabasePath } from "./state-paths.js";

/** Options of {@link SqliteStateStore.open}. */
export interface SqliteStateStoreOptions {
  /** The clock for every timestamp the store sets; defaults to the system clock. */
  now?: () => Date;
  /** Who takes this process's approval decisions (the OS user), recorded as each one's `decidedBy`; none by default. */
  decidedBy?: string;
}

/**
 * The CLI's durable state in `<stateDir>/state.db`: the stores of `@agent/store-sqlite` (approvals,
 * runs, tainted files). Several processes may hold it open at once.
 */
export class SqliteStateStore {
  /** The state database file. */
  readonly file: string;
  /** Approval requests and grants, implementing `ApprovalStore` from `@agent/policy`. */
  readonly approvals: SqliteApprovalStore;
  /** Every run (`agent run`, and `agent call`'s one-call runs), implementing `RunStore` from `@agent/loop`. */
  readonly runs: SqliteRunStore;
  /** The files tainted runs wrote (the flow guard), implementing `TaintedFileStore` from `@agent/policy`. */
  readonly taintedFiles: SqliteTaintedFileStore;
  readonly #state: SqliteState;

  private constructor(state: SqliteState, file: string) {
    this.#state = state;
    this.file = file;
    this.approvals = state.approvals;
    this.runs = state.runs;
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
    return new SqliteStateStore(state, file);
  }

  /** Closes the connection; later calls fail. Closing twice is harmless. */
  close(): void {
    this.#state.close();
  }
}
