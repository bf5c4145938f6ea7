import {
  type PostgresMigration,
  type PostgresTeamRoles,
  postgresTeamGrants,
  translateDatabaseError,
} from "@agent/store-postgres";
import type { Pool } from "pg";
import type { RunOwner } from "./run-owner.js";
import {
  type NewRun,
  type RunPatch,
  type RunRecord,
  type RunRow,
  type RunStatus,
  runFromRow,
} from "./sqlite-state-store.js";
import { STATE_ERROR_CODES, StateError } from "./state-error.js";

/** The CLI's own PostgreSQL tables (one-call runs of `agent call`), migrated beside the stores'. */
export const CLI_POSTGRES_MIGRATIONS: { component: string; migrations: readonly PostgresMigration[] } =
  Object.freeze({
    component: "agent-cli",
    migrations: [
      {
        version: 1,
        description: "one-call runs of agent call",
        sql: `
        CREATE TABLE agent_call_runs (
          seq BIGSERIAL UNIQUE,
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
          outcome_json TEXT,
          owner_pid INTEGER,
          owner_host TEXT
        );
        CREATE INDEX agent_call_runs_newest_first ON agent_call_runs (created_at DESC);
        -- The key of server identities, shared by every machine (see server-identity.ts).
        CREATE TABLE agent_cli_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
      `,
      },
      {
        version: 2,
        description: "the key of server identities leaves the database",
        // Every role that reads the database could read it, and with it try candidate secrets against
        // the fingerprints beside it. It now comes from state.identityKey (or each state directory).
        sql: "DELETE FROM agent_cli_settings WHERE name = 'identity_key';",
      },
    ],
  });

/**
 * The `GRANT` statements of a team's two roles over the stores' tables and the CLI's own: see
 * `postgresTeamGrants`. The agent role writes one-call runs; the approver role reads them.
 */
export function cliPostgresTeamGrants(roles: PostgresTeamRoles): string {
  return [
    postgresTeamGrants(roles),
    `GRANT SELECT ON agent_call_runs TO ${roles.agent}, ${roles.approver};`,
    `GRANT INSERT, UPDATE ON agent_call_runs TO ${roles.agent};`,
    `GRANT USAGE ON SEQUENCE agent_call_runs_seq_seq TO ${roles.agent};`,
  ].join("\n");
}

/**
 * The one-call runs of `agent call` in PostgreSQL, with the semantics of the SQLite state: a claim
 * is a compare-and-set on status and owner, so of resumes racing on several machines one starts it.
 */
export class PostgresCallRuns {
  readonly #pool: Pool;
  readonly #owner: RunOwner;
  readonly #now: () => Date;

  /** Wraps a pool on a database migrated with {@link CLI_POSTGRES_MIGRATIONS}. */
  constructor(pool: Pool, owner: RunOwner, now: () => Date = () => new Date()) {
    this.#pool = pool;
    this.#owner = owner;
    this.#now = now;
  }

  /** Records a new run; throws `StateError` (`run_exists`) if its id is taken. */
  async createRun(run: NewRun): Promise<RunRecord> {
    const now = this.#now().toISOString();
    const id = run.id ?? `run_${globalThis.crypto.randomUUID()}`;
    const status = run.status ?? "running";
    const owner = status === "running" ? this.#owner : undefined;
    const rows = await this.#rows(
      `INSERT INTO agent_call_runs (id, created_at, updated_at, status, tool_name, call_id, input_json,
         tool_fingerprint, cwd, request_id, owner_pid, owner_host)
       VALUES ($1, $2, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING *`,
      [
        id,
        now,
        status,
        run.toolName,
        run.callId ?? `call_${globalThis.crypto.randomUUID()}`,
        JSON.stringify(run.input),
        run.toolFingerprint ?? null,
        run.cwd,
        run.requestId ?? null,
        owner?.pid ?? null,
        owner?.host ?? null,
      ],
    );
    if (!rows[0])
      throw new StateError(
        STATE_ERROR_CODES.runExists,
        `A run with id "${id}" already exists; give each run a fresh id.`,
      );
    return runFromRow(rows[0]);
  }

  /** The run with this id, if any. */
  async getRun(id: string): Promise<RunRecord | undefined> {
    const rows = await this.#rows("SELECT * FROM agent_call_runs WHERE id = $1", [id]);
    return rows[0] && runFromRow(rows[0]);
  }

  /** Changes a run's fields and returns it; throws `StateError` (`run_not_found`) for an unknown id. */
  async updateRun(id: string, patch: RunPatch): Promise<RunRecord> {
    const updated = await this.#update(id, patch);
    if (!updated) throw runNotFound(id);
    return updated;
  }

  /** Sets a run `running` for this process only if its status and owner are still those of `seen`. */
  async claimRun(seen: Pick<RunRecord, "id" | "status" | "owner">): Promise<RunRecord | undefined> {
    const claimed = await this.#update(seen.id, { status: "running" }, seen);
    if (claimed) return claimed;
    if (!(await this.getRun(seen.id))) throw runNotFound(seen.id);
    return undefined;
  }

  /** Runs, newest first, optionally only those with one status and at most `limit` of them. */
  async listRuns(filter: { status?: RunStatus; limit?: number } = {}): Promise<RunRecord[]> {
    const rows = await this.#rows(
      `SELECT * FROM agent_call_runs WHERE ($1::text IS NULL OR status = $1)
       ORDER BY created_at DESC, seq DESC LIMIT $2`,
      [filter.status ?? null, filter.limit ?? null],
    );
    return rows.map(runFromRow);
  }

  async #update(
    id: string,
    patch: RunPatch,
    expected?: Pick<RunRecord, "status" | "owner">,
  ): Promise<RunRecord | undefined> {
    const values: unknown[] = [id, this.#now().toISOString()];
    const assignments = ["updated_at = $2"];
    const set = (column: string, value: unknown) => {
      values.push(value);
      assignments.push(`${column} = $${values.length}`);
    };
    if (patch.status !== undefined) {
      const owner = patch.status === "running" ? this.#owner : undefined;
      set("status", patch.status);
      set("owner_pid", owner?.pid ?? null);
      set("owner_host", owner?.host ?? null);
    }
    if (patch.toolFingerprint !== undefined) set("tool_fingerprint", patch.toolFingerprint);
    if (patch.requestId !== undefined) set("request_id", patch.requestId);
    if (patch.outcome !== undefined) set("outcome_json", JSON.stringify(patch.outcome));
    let guard = "";
    if (expected !== undefined) {
      values.push(expected.status, expected.owner?.pid ?? null, expected.owner?.host ?? null);
      const at = values.length;
      // IS NOT DISTINCT FROM: an absent owner is NULL, and NULL = NULL is not true.
      guard = ` AND status = $${at - 2} AND owner_pid IS NOT DISTINCT FROM $${at - 1}::int AND owner_host IS NOT DISTINCT FROM $${at}::text`;
    }
    const rows = await this.#rows(
      `UPDATE agent_call_runs SET ${assignments.join(", ")} WHERE id = $1${guard} RETURNING *`,
      values,
    );
    return rows[0] && runFromRow(rows[0]);
  }

  async #rows(sql: string, values: unknown[]): Promise<RunRow[]> {
    try {
      return (await this.#pool.query<RunRow>(sql, values)).rows;
    } catch (error) {
      return translateDatabaseError(error, "read or change a run");
    }
  }
}

function runNotFound(id: string): StateError {
  return new StateError(STATE_ERROR_CODES.runNotFound, `No run has id "${id}"; list runs to find it.`);
}
