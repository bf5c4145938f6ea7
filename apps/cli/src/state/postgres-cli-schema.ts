// The CLI's own steps of the PostgreSQL schema (component `agent-cli`), beside the stores': a released
// step is never edited (databases that ran it would not run it again); change it only by appending one.

import { insertRun, type PostgresMigration } from "@agent/store-postgres";
import { callRunOfLegacyRow, type LegacyCallRunRow } from "@agent/store-sqlite";

/** The CLI's own PostgreSQL steps, migrated beside the stores'. */
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
      {
        version: 3,
        description: "one-call runs are runs of @agent/loop: agent_call_runs moves into agent_runs",
        // The same rows, read as the SQLite state's step 8 reads its table `runs` (same columns):
        // same ids, call ids, statuses and approval requests, so a held call resumes as before.
        rewrite: async (client) => {
          // Older CLIs on other machines still write this table: shut them out until the step
          // commits, so no row lands between the copy and the DROP (their writes then fail, loudly).
          await client.query("LOCK TABLE agent_call_runs IN ACCESS EXCLUSIVE MODE");
          const rows = await client.query<LegacyCallRunRow>("SELECT * FROM agent_call_runs ORDER BY seq");
          for (const row of rows.rows) await insertRun(client, callRunOfLegacyRow(row));
        },
        sql: "DROP TABLE agent_call_runs;",
      },
    ],
  });
