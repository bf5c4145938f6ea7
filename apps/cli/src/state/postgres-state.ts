import { randomBytes } from "node:crypto";
import { createPostgresAuditSink, openPostgresState, type PostgresAuditSink } from "@agent/store-postgres";
import type { Pool } from "pg";
import { CLI_POSTGRES_MIGRATIONS, PostgresCallRuns } from "./postgres-call-runs.js";
import type { RunOwner } from "./run-owner.js";
import type { StateStore } from "./state-store.js";

/** The shared state of a team: the stores, the audit trail's table, and the identity key every machine uses. */
export interface PostgresStateBackend {
  store: StateStore;
  audit: PostgresAuditSink;
  pool: Pool;
  /** The key of server identities, shared so that a run held on one machine matches on another. */
  identityKey: Buffer;
}

/**
 * Opens the PostgreSQL state at `url` (migrating it once, under an advisory lock) for this process:
 * requests record `owner.host`, decisions `decidedBy`.
 */
export async function openPostgresStateBackend(options: {
  url: string;
  owner: RunOwner;
  decidedBy: string;
  onAuditError: (error: unknown) => void;
}): Promise<PostgresStateBackend> {
  const state = await openPostgresState({
    url: options.url,
    host: options.owner.host,
    decidedBy: options.decidedBy,
    extraMigrations: CLI_POSTGRES_MIGRATIONS,
  });
  try {
    const identityKey = await sharedIdentityKey(state.pool);
    const runs = new PostgresCallRuns(state.pool, options.owner);
    const audit = createPostgresAuditSink(state.pool, {
      host: options.owner.host,
      onError: options.onAuditError,
    });
    const store: StateStore = {
      kind: "postgres",
      approvals: state.approvals,
      agentRuns: state.runs,
      taintedFiles: state.taintedFiles,
      taintWindows: state.taintedFiles,
      createRun: (run) => runs.createRun(run),
      getRun: (id) => runs.getRun(id),
      updateRun: (id, patch) => runs.updateRun(id, patch),
      claimRun: (seen) => runs.claimRun(seen),
      listRuns: (filter) => runs.listRuns(filter),
      async close() {
        await audit.close().catch(options.onAuditError);
        await state.close();
      },
    };
    return { store, audit, pool: state.pool, identityKey };
  } catch (error) {
    await state.close();
    throw error;
  }
}

// The first process to ask creates the key; every later one, on any machine, reads that one.
async function sharedIdentityKey(pool: Pool): Promise<Buffer> {
  await pool.query(
    "INSERT INTO agent_cli_settings (name, value) VALUES ('identity_key', $1) ON CONFLICT (name) DO NOTHING",
    [randomBytes(32).toString("hex")],
  );
  const result = await pool.query<{ value: string }>(
    "SELECT value FROM agent_cli_settings WHERE name = 'identity_key'",
  );
  return Buffer.from(result.rows[0]?.value ?? "", "hex");
}
