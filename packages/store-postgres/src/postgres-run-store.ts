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
import type { Pool, PoolClient } from "pg";
import { STORE_POSTGRES_ERROR_CODES, StorePostgresError, translateDatabaseError } from "./errors.js";

interface RunRow {
  run_id: string;
  status: string;
  created_at: string;
  updated_at: string;
  prompt: string;
  header_json: string;
}

/**
 * The {@link RunStore} for harness processes on many machines. `updateRun` is a compare-and-set: it
 * locks the run's row only if its version is the expected one, so of concurrent resumes on any
 * machines exactly one moves the run on; the others change nothing and are told so.
 */
export class PostgresRunStore implements RunStore {
  readonly #pool: Pool;

  /** Wraps a pool on a database migrated with `migrate`; the pool stays the caller's. */
  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Saves a new run; throws `LoopError` `run_exists` if the id is taken. */
  async createRun(state: RunState): Promise<void> {
    assertRunFormat(state);
    await this.#transaction("save a run", (client) => insertRun(client, state));
  }

  /** The run's whole record, as it was saved. */
  async loadRun(runId: string): Promise<RunState | undefined> {
    return this.#transaction("load a run", async (client) => {
      // One snapshot for the header and both lists, so a concurrent update is seen whole or not at all.
      await client.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const run = await client.query<RunRow>("SELECT * FROM agent_runs WHERE run_id = $1", [runId]);
      const row = run.rows[0];
      if (!row) return undefined;
      const header = parseJson(row.header_json, runId) as RunHeader;
      assertRunFormat(header);
      const messages = await client.query<{ message_json: string }>(
        "SELECT message_json FROM agent_run_messages WHERE run_id = $1 ORDER BY seq",
        [runId],
      );
      const calls = await client.query<{ call_json: string }>(
        "SELECT call_json FROM agent_run_calls WHERE run_id = $1 ORDER BY seq",
        [runId],
      );
      return {
        ...header,
        messages: messages.rows.map((message) => parseJson(message.message_json, runId)),
        calls: calls.rows.map((call) => parseJson(call.call_json, runId)),
      } as RunState;
    });
  }

  /** Runs, newest first. */
  async listRuns(options: { limit?: number } = {}): Promise<RunSummary[]> {
    const result = await this.#pool
      .query<RunRow>("SELECT * FROM agent_runs ORDER BY created_at DESC, run_id DESC LIMIT $1", [
        options.limit ?? null,
      ])
      .catch((error: unknown) => translateDatabaseError(error, "list runs"));
    return result.rows.map((row) =>
      summarizeRunHeader(parseJson(row.header_json, row.run_id) as RunHeader, row.prompt),
    );
  }

  /** Compare-and-set on the version: applies `change` only if the run is at `expectedVersion`. */
  async updateRun(
    runId: string,
    expectedVersion: number,
    change: RunChange,
    now = new Date(),
  ): Promise<number | undefined> {
    return this.#transaction("update a run", async (client) => {
      // Under READ COMMITTED a concurrent updater waits on this row lock, then re-checks the version
      // against the committed row and finds nothing: one update per version, on any machine.
      const locked = await client.query<{ header_json: string }>(
        "SELECT header_json FROM agent_runs WHERE run_id = $1 AND version = $2 FOR UPDATE",
        [runId, expectedVersion],
      );
      const row = locked.rows[0];
      if (!row) return undefined;
      const header = applyRunChange(parseJson(row.header_json, runId) as RunHeader, change, now);
      await client.query(
        "UPDATE agent_runs SET version = $2, status = $3, updated_at = $4, header_json = $5 WHERE run_id = $1",
        [runId, header.version, header.status, header.updatedAt, JSON.stringify(header)],
      );
      if (change.appendMessages?.length) {
        await appendRows(
          client,
          "agent_run_messages",
          "message_json",
          runId,
          await nextSeq(client, "agent_run_messages", runId),
          change.appendMessages,
        );
      }
      if (change.appendCalls?.length) {
        await appendRows(
          client,
          "agent_run_calls",
          "call_json",
          runId,
          await nextSeq(client, "agent_run_calls", runId),
          change.appendCalls,
        );
      }
      return header.version;
    });
  }

  async #transaction<T>(doing: string, body: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient | undefined;
    try {
      client = await this.#pool.connect();
      await client.query("BEGIN");
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client?.query("ROLLBACK").catch(() => {});
      if (LoopError.isInstance(error)) throw error;
      return translateDatabaseError(error, doing);
    } finally {
      client?.release();
    }
  }
}

/**
 * Writes a new run's rows on `client`, inside the caller's transaction (`createRun`'s, or a
 * migration step's); throws `LoopError` `run_exists` if the id is taken.
 */
export async function insertRun(client: PoolClient, state: RunState): Promise<void> {
  const { messages, calls, ...header } = state;
  const first = messages[0];
  const inserted = await client.query(
    `INSERT INTO agent_runs (run_id, version, status, created_at, updated_at, prompt, header_json)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (run_id) DO NOTHING`,
    [
      header.runId,
      header.version,
      header.status,
      header.createdAt,
      header.updatedAt,
      first?.role === "user" ? first.content : "",
      JSON.stringify(header),
    ],
  );
  if (inserted.rowCount !== 1)
    throw new LoopError(LOOP_ERROR_CODES.runExists, `A run with id ${state.runId} already exists.`);
  await appendRows(client, "agent_run_messages", "message_json", state.runId, 0, messages);
  await appendRows(client, "agent_run_calls", "call_json", state.runId, 0, calls);
}

async function nextSeq(
  client: PoolClient,
  table: "agent_run_messages" | "agent_run_calls",
  runId: string,
): Promise<number> {
  const result = await client.query<{ next: number }>(
    `SELECT COALESCE(MAX(seq), 0)::int AS next FROM ${table} WHERE run_id = $1`,
    [runId],
  );
  return result.rows[0]?.next ?? 0;
}

async function appendRows(
  client: PoolClient,
  table: "agent_run_messages" | "agent_run_calls",
  column: "message_json" | "call_json",
  runId: string,
  after: number,
  items: readonly unknown[],
): Promise<void> {
  if (items.length === 0) return;
  await client.query(
    `INSERT INTO ${table} (run_id, seq, ${column})
     SELECT $1, $2 + ordinality, item FROM unnest($3::text[]) WITH ORDINALITY AS t(item, ordinality)`,
    [runId, after, items.map((item) => JSON.stringify(item))],
  );
}

function parseJson(text: string, runId: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StorePostgresError(
      STORE_POSTGRES_ERROR_CODES.corruptRow,
      `run ${runId} has a record that is not JSON; it was not written by this package`,
      {
        cause: error,
      },
    );
  }
}
