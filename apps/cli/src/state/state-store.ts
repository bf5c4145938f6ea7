import type { RunStore } from "@agent/loop";
import type { ApprovalStore, TaintedFileStore, TaintWindowStore } from "@agent/policy";
import type { NewRun, RunPatch, RunRecord, RunStatus, SqliteStateStore } from "./sqlite-state-store.js";

/**
 * The CLI's durable state, wherever it lives: the SQLite database of this machine, or a PostgreSQL
 * database shared by every machine of a team. Every command works the same on either.
 */
export interface StateStore {
  /** `sqlite` or `postgres`, for messages; never the URL. */
  readonly kind: "sqlite" | "postgres";
  readonly approvals: ApprovalStore;
  /** Agent runs (`agent run`). */
  readonly agentRuns: RunStore;
  /** The files tainted agent runs wrote (the flow guard's laundering marks). */
  readonly taintedFiles: TaintedFileStore;
  /** When tainted agent runs ran commands (or servers) that may write files nobody names. */
  readonly taintWindows: TaintWindowStore;
  /** Records a one-call run of `agent call`; throws `StateError` (`run_exists`) if its id is taken. */
  createRun(run: NewRun): Promise<RunRecord>;
  getRun(id: string): Promise<RunRecord | undefined>;
  /** Changes a run's fields; throws `StateError` (`run_not_found`) for an unknown id. */
  updateRun(id: string, patch: RunPatch): Promise<RunRecord>;
  /** Sets a run `running` for this process only if its status and owner are still those of `seen`. */
  claimRun(seen: Pick<RunRecord, "id" | "status" | "owner">): Promise<RunRecord | undefined>;
  /** One-call runs, newest first. */
  listRuns(filter?: { status?: RunStatus; limit?: number }): Promise<RunRecord[]>;
  /** Closes the database; idempotent. */
  close(): Promise<void>;
}

/** The SQLite state behind the {@link StateStore} interface (its run methods answer at once). */
export function sqliteStateStore(store: SqliteStateStore): StateStore {
  return {
    kind: "sqlite",
    approvals: store.approvals,
    agentRuns: store.agentRuns,
    taintedFiles: store.taintedFiles,
    taintWindows: store.taintedFiles,
    createRun: async (run) => store.createRun(run),
    getRun: async (id) => store.getRun(id),
    updateRun: async (id, patch) => store.updateRun(id, patch),
    claimRun: async (seen) => store.claimRun(seen),
    listRuns: async (filter) => store.listRuns(filter),
    close: async () => store.close(),
  };
}
