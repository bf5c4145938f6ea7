// The saved format of every SQLite state database: a released step is never edited (databases that
// ran it would not run it again), and the numbering is `PRAGMA user_version`, shared with the
// databases the `agent` CLI wrote before this package existed. Change it only by appending a step.
import type Database from "better-sqlite3";
import { STORE_SQLITE_ERROR_CODES, StoreSqliteError } from "./errors.js";
import { callRunOfLegacyRow, type LegacyCallRunRow } from "./legacy-call-runs.js";
import { insertRun } from "./run-rows.js";

/** One step of the state schema: applied once, in order, inside a write transaction. */
export interface SqliteMigration {
  /** The `PRAGMA user_version` after this step. */
  version: number;
  description: string;
  sql: string;
  /**
   * Rows the step rewrites in TypeScript, where SQL cannot say how (run before `sql`, in the same
   * transaction).
   */
  rewrite?: (database: Database.Database) => void;
}

/**
 * Every schema step, oldest first. Append only: a released step is never edited, since databases
 * that already ran it would not run it again. The table `runs` (steps 1 and 2) held the one-call
 * runs of the `agent` CLI until step 8 moved them into the run tables of step 3.
 */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    description: "runs and approvals",
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('waiting', 'running', 'completed', 'failed', 'cancelled')),
        tool_name TEXT NOT NULL,
        call_id TEXT NOT NULL,
        input_json TEXT NOT NULL,
        tool_fingerprint TEXT,
        cwd TEXT NOT NULL,
        request_id TEXT,
        outcome_json TEXT
      );
      CREATE INDEX runs_by_created_at ON runs (created_at);

      CREATE TABLE approvals (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        effect TEXT NOT NULL CHECK (effect IN ('read', 'write', 'external')),
        action_digest TEXT NOT NULL,
        tool_fingerprint TEXT NOT NULL,
        summary TEXT NOT NULL,
        input_preview TEXT NOT NULL,
        unverified_hints_json TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'granted', 'denied', 'consumed')),
        created_at TEXT NOT NULL,
        decided_at TEXT,
        consumed_at TEXT
      );
      CREATE INDEX approvals_by_action ON approvals (run_id, action_digest, status);
      -- At most one pending request per run and action, even when processes race to save one.
      CREATE UNIQUE INDEX approvals_one_pending ON approvals (run_id, action_digest) WHERE status = 'pending';
    `,
  },
  {
    version: 2,
    description: "the owner (pid and host) of a running run",
    // Runs of version 1 keep NULL owners: nobody can tell whether the process that ran them is gone.
    sql: `
      ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
      ALTER TABLE runs ADD COLUMN owner_host TEXT;
    `,
  },
  {
    version: 3,
    description: "agent runs: a header per run, its transcript and call records appended",
    // The header is the loop's RunHeader as JSON (its format is the loop's to version); status,
    // version and the prompt are columns for the compare-and-set and for listings.
    sql: `
      CREATE TABLE agent_runs (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        status TEXT NOT NULL,
        version INTEGER NOT NULL,
        prompt TEXT NOT NULL,
        header_json TEXT NOT NULL
      );
      CREATE INDEX agent_runs_by_created_at ON agent_runs (created_at);
      CREATE TABLE agent_run_messages (
        run_id TEXT NOT NULL REFERENCES agent_runs (id),
        seq INTEGER NOT NULL,
        message_json TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE agent_run_calls (
        run_id TEXT NOT NULL REFERENCES agent_runs (id),
        seq INTEGER NOT NULL,
        call_json TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
    `,
  },
  {
    version: 4,
    description: "voided approvals, and everything an approval's digest binds (input, cwd, network)",
    // SQLite cannot change a CHECK constraint in place: the table is rebuilt, keeping each row's
    // rowid (the tie-break of "oldest first"). Rows of earlier versions get NULL for the new
    // columns: their input is still in the run that asked.
    sql: `
      CREATE TABLE approvals_v4 (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        effect TEXT NOT NULL CHECK (effect IN ('read', 'write', 'external')),
        action_digest TEXT NOT NULL,
        tool_fingerprint TEXT NOT NULL,
        summary TEXT NOT NULL,
        input_preview TEXT NOT NULL,
        unverified_hints_json TEXT,
        status TEXT NOT NULL CHECK (status IN ('pending', 'granted', 'denied', 'consumed', 'voided')),
        created_at TEXT NOT NULL,
        decided_at TEXT,
        consumed_at TEXT,
        input_json TEXT,
        cwd TEXT,
        network TEXT,
        voided_at TEXT,
        void_reason TEXT
      );
      INSERT INTO approvals_v4 (rowid, id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint,
        summary, input_preview, unverified_hints_json, status, created_at, decided_at, consumed_at)
      SELECT rowid, id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint,
        summary, input_preview, unverified_hints_json, status, created_at, decided_at, consumed_at
      FROM approvals ORDER BY rowid;
      DROP TABLE approvals;
      ALTER TABLE approvals_v4 RENAME TO approvals;
      CREATE INDEX approvals_by_action ON approvals (run_id, action_digest, status);
      CREATE UNIQUE INDEX approvals_one_pending ON approvals (run_id, action_digest) WHERE status = 'pending';
    `,
  },
  {
    version: 5,
    description: "who decided an approval (the OS user of the CLI that granted, denied or voided it)",
    // Decisions of earlier versions keep NULL: nobody recorded who took them.
    sql: `
      ALTER TABLE approvals ADD COLUMN decided_by TEXT;
    `,
  },
  {
    version: 6,
    description: "the digest version each approval was digested under",
    // Every approval saved before was digested under version 1, the only one there was until then.
    sql: `
      ALTER TABLE approvals ADD COLUMN digest_version INTEGER NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 7,
    description: "the flow guard: why a call was held and what tainted its run; files tainted runs wrote",
    // Approvals saved before were judged without taint: NULL. A tainted file is keyed by its absolute
    // path: one mark per path, replaced by the next tainted write and removed by a clean one.
    sql: `
      ALTER TABLE approvals ADD COLUMN flow_json TEXT;
      CREATE TABLE tainted_files (
        path TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        run_id TEXT NOT NULL,
        sources_json TEXT NOT NULL,
        marked_at TEXT NOT NULL
      );
      CREATE TABLE taint_windows (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        sources_json TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        ended_at INTEGER
      );
      CREATE INDEX taint_windows_by_start ON taint_windows (started_at);
    `,
  },
  {
    version: 8,
    description: "one-call runs are runs of @agent/loop: the table runs moves into agent_runs",
    // Same ids, call ids, statuses and approval requests, so a held call resumes as before; oldest
    // first, as the table listed them. Then the old table goes: one saved format of a run.
    rewrite: (database) => {
      const rows = database.prepare("SELECT * FROM runs ORDER BY created_at, rowid").all();
      const prepare = (sql: string) => database.prepare(sql);
      for (const row of rows as LegacyCallRunRow[]) insertRun(callRunOfLegacyRow(row), prepare);
    },
    sql: `
      DROP TABLE runs;
    `,
  },
];

/** The schema version this build writes; a database with a higher one is refused, never downgraded. */
export const SQLITE_SCHEMA_VERSION: number = SQLITE_MIGRATIONS.at(-1)?.version ?? 0;

/** The schema version of `database` (`PRAGMA user_version`; 0 for a new, empty one). */
export function readSchemaVersion(database: Database.Database): number {
  return Number(database.pragma("user_version", { simple: true }));
}

/**
 * Throws `store_schema_newer` if `database` was migrated by a newer version of this package; it
 * writes nothing, so such a file is left exactly as it was.
 */
export function assertSchemaNotNewer(database: Database.Database): void {
  const version = readSchemaVersion(database);
  if (version <= SQLITE_SCHEMA_VERSION) return;
  throw new StoreSqliteError(
    STORE_SQLITE_ERROR_CODES.schemaNewer,
    `The state database ${database.name} has schema version ${version}, but this agent understands up to ${SQLITE_SCHEMA_VERSION}; it was left untouched. Upgrade the agent, or use another database file.`,
    { file: database.name },
  );
}

/**
 * Applies the steps `database` has not run yet, in one IMMEDIATE transaction (it takes the write lock
 * first, so two processes opening a new file migrate it once). Throws `store_schema_newer` for a
 * database of a newer version, without writing.
 */
export function migrateSqliteDatabase(database: Database.Database): void {
  database
    .transaction(() => {
      assertSchemaNotNewer(database);
      const current = readSchemaVersion(database);
      for (const migration of SQLITE_MIGRATIONS) {
        if (migration.version <= current) continue;
        migration.rewrite?.(database);
        database.exec(migration.sql);
        database.pragma(`user_version = ${migration.version}`);
      }
    })
    .immediate();
}
