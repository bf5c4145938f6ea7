// The rows of a run in the state database (agent_runs, agent_run_messages, agent_run_calls), written
// by the run store and by the migration step that moves the CLI's former one-call runs in. No import
// at run time: the migrations, which use it, run wherever a database is opened.
import type { RunState } from "@agent/loop";
import type Database from "better-sqlite3";

/** Prepares a statement (the run store's cache of them, or the database itself). */
export type Prepare = (sql: string) => Database.Statement;

/**
 * Writes a new run's rows, inside the caller's transaction (`createRun`'s, or a migration step's);
 * a taken id throws SQLite's primary key error.
 */
export function insertRun(state: RunState, prepare: Prepare): void {
  const { messages, calls, ...header } = state;
  const first = messages[0];
  prepare(
    `INSERT INTO agent_runs (id, created_at, updated_at, status, version, prompt, header_json)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    header.runId,
    header.createdAt,
    header.updatedAt,
    header.status,
    header.version,
    first?.role === "user" ? first.content : "",
    JSON.stringify(header),
  );
  appendItems(prepare, header.runId, "agent_run_messages", "message_json", messages);
  appendItems(prepare, header.runId, "agent_run_calls", "call_json", calls);
}

export function appendItems(
  prepare: Prepare,
  runId: string,
  table: "agent_run_messages" | "agent_run_calls",
  column: "message_json" | "call_json",
  items: readonly unknown[],
): void {
  if (items.length === 0) return;
  const next = prepare(`SELECT COALESCE(MAX(seq), -1) + 1 AS next FROM ${table} WHERE run_id = ?`).get(
    runId,
  ) as { next: number };
  const insert = prepare(`INSERT INTO ${table} (run_id, seq, ${column}) VALUES (?, ?, ?)`);
  items.forEach((item, index) => {
    insert.run(runId, next.next + index, JSON.stringify(item));
  });
}
