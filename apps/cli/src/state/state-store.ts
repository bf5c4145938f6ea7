import type { RunStore } from "@agent/loop";
import type { ApprovalStore, TaintedFileStore, TaintWindowStore } from "@agent/policy";
import type { SqliteStateStore } from "./sqlite-state-store.js";

/**
 * The CLI's durable state, wherever it lives: the SQLite database of this machine, or a PostgreSQL
 * database shared by every machine of a team. Every command works the same on either.
 */
export interface StateStore {
  /** `sqlite` or `postgres`, for messages; never the URL. */
  readonly kind: "sqlite" | "postgres";
  readonly approvals: ApprovalStore;
  /** Every run: agent runs (`agent run`) and one-call runs (`agent call`, `startCallRun`) alike. */
  readonly runs: RunStore;
  /** The files tainted agent runs wrote (the flow guard's laundering marks). */
  readonly taintedFiles: TaintedFileStore;
  /** When tainted agent runs ran commands (or servers) that may write files nobody names. */
  readonly taintWindows: TaintWindowStore;
  /** Closes the database; idempotent. */
  close(): Promise<void>;
}

/** The SQLite state behind the {@link StateStore} interface. */
export function sqliteStateStore(store: SqliteStateStore): StateStore {
  return {
    kind: "sqlite",
    approvals: store.approvals,
    runs: store.runs,
    taintedFiles: store.taintedFiles,
    taintWindows: store.taintedFiles,
    close: async () => store.close(),
  };
}
