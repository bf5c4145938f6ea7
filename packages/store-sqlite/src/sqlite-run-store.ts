import {
  applyRunChange,
  assertRunFormat,
  LOOP_ERROR_CODES,
  LoopError,
  type RunChange,
  type RunHeader,
  type RunState,
  type RunStore,
  type RunSummary,
  summarizeRunHeader,
} from "@agent/loop";
import type Database from "better-sqlite3";
import { appendItems, insertRun } from "./run-rows.js";

interface AgentRunRow {
  id: string;
  created_at: string;
  version: number;
  prompt: string;
  header_json: string;
}

/**
 * The loop's {@link RunStore} in a SQLite state database (tables `agent_runs`,
 * `agent_run_messages`, `agent_run_calls`). Every update is one IMMEDIATE transaction that checks
 * the version first, so of two processes updating one version exactly one succeeds; the transcript
 * and call records are appended rows, so an update writes what changed, not the whole run.
 */
export class SqliteRunStore implements RunStore {
  readonly #database: Database.Database;
  // Prepared once, on first use (an agent run updates twice a turn; compiling the SQL each time
  // would cost more than the update itself).
  readonly #statements = new Map<string, Database.Statement>();

  /** Wraps an open, migrated state database (see `migrateSqliteDatabase`). */
  constructor(database: Database.Database) {
    this.#database = database;
  }

  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#database.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Saves a new run; throws `LoopError` `run_exists` if the id is taken. */
  async createRun(state: RunState): Promise<void> {
    assertRunFormat(state);
    const insert = this.#database.transaction(() => insertRun(state, (sql) => this.#prepare(sql)));
    try {
      insert.immediate();
    } catch (cause) {
      if ((cause as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") {
        throw new LoopError(LOOP_ERROR_CODES.runExists, `A run with id ${state.runId} already exists.`, {
          cause,
        });
      }
      throw cause;
    }
  }

  /** The run's whole record, or undefined. */
  async loadRun(runId: string): Promise<RunState | undefined> {
    const read = this.#database.transaction((): RunState | undefined => {
      const row = this.#row(runId);
      if (!row) return undefined;
      const header = readHeader(row);
      const messages = this.#list(runId, "agent_run_messages", "message_json") as RunState["messages"];
      const calls = this.#list(runId, "agent_run_calls", "call_json") as RunState["calls"];
      return { ...header, messages, calls };
    });
    // DEFERRED: a read-only snapshot, consistent across the three tables.
    return read.deferred();
  }

  /** Runs, newest first. */
  async listRuns(options: { limit?: number } = {}): Promise<RunSummary[]> {
    const rows = this.#prepare("SELECT * FROM agent_runs ORDER BY created_at DESC, rowid DESC LIMIT ?").all(
      options.limit ?? -1,
    ) as AgentRunRow[];
    return rows.map((row) => summarizeRunHeader(readHeader(row), row.prompt));
  }

  /**
   * Compare-and-set on the version, in one IMMEDIATE transaction (it takes the write lock first).
   * better-sqlite3 is synchronous: the transaction is done when this returns its (settled) promise.
   */
  async updateRun(
    runId: string,
    expectedVersion: number,
    change: RunChange,
    now = new Date(),
  ): Promise<number | undefined> {
    const update = this.#database.transaction((): number | undefined => {
      const row = this.#row(runId);
      if (!row || row.version !== expectedVersion) return undefined;
      const header = applyRunChange(readHeader(row), change, now);
      const changed = this.#prepare(
        "UPDATE agent_runs SET updated_at = ?, status = ?, version = ?, header_json = ? WHERE id = ? AND version = ?",
      ).run(header.updatedAt, header.status, header.version, JSON.stringify(header), runId, expectedVersion);
      if (changed.changes !== 1) return undefined;
      const prepare = (sql: string) => this.#prepare(sql);
      appendItems(prepare, runId, "agent_run_messages", "message_json", change.appendMessages ?? []);
      appendItems(prepare, runId, "agent_run_calls", "call_json", change.appendCalls ?? []);
      return header.version;
    });
    return update.immediate();
  }

  #row(runId: string): AgentRunRow | undefined {
    return this.#prepare("SELECT * FROM agent_runs WHERE id = ?").get(runId) as AgentRunRow | undefined;
  }

  #list(runId: string, table: string, column: string): unknown[] {
    const rows = this.#prepare(`SELECT ${column} AS json FROM ${table} WHERE run_id = ? ORDER BY seq`).all(
      runId,
    ) as { json: string }[];
    return rows.map((row) => JSON.parse(row.json) as unknown);
  }
}

function readHeader(row: AgentRunRow): RunHeader {
  const header = JSON.parse(row.header_json) as RunHeader;
  assertRunFormat(header);
  return header;
}
