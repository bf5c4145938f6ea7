import type { PoolClient } from "pg";
import { STORE_POSTGRES_ERROR_CODES, StorePostgresError } from "./errors.js";

/**
 * One step of the PostgreSQL schema, applied once, in order. Append only: a released step is never
 * edited, since databases that ran it would not run it again.
 */
export interface PostgresMigration {
  version: number;
  description: string;
  sql: string;
  /**
   * Rows the step rewrites in TypeScript, where SQL cannot say how: run before `sql`, on the
   * migrating client, inside its transaction.
   */
  rewrite?: (client: PoolClient) => Promise<void>;
}

/** Every schema step, oldest first. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description: "approval requests and one-shot grants",
    sql: `
      CREATE TABLE agent_approvals (
        seq BIGSERIAL UNIQUE,
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        call_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        effect TEXT NOT NULL CHECK (effect IN ('read', 'write', 'external')),
        action_digest TEXT NOT NULL,
        tool_fingerprint TEXT NOT NULL,
        summary TEXT NOT NULL,
        input_preview TEXT NOT NULL,
        unverified_hints JSONB,
        status TEXT NOT NULL CHECK (status IN ('pending', 'granted', 'denied', 'consumed')),
        created_at TEXT NOT NULL,
        decided_at TEXT,
        decided_by TEXT,
        consumed_at TEXT,
        requested_on_host TEXT
      );
      CREATE INDEX agent_approvals_by_action ON agent_approvals (run_id, action_digest, status);
      CREATE INDEX agent_approvals_by_status ON agent_approvals (status, created_at);
      -- At most one pending request per run and action, even when machines race to save one.
      CREATE UNIQUE INDEX agent_approvals_one_pending ON agent_approvals (run_id, action_digest)
        WHERE status = 'pending';
    `,
  },
  {
    version: 2,
    description: "the append-only, hash-chained audit trail",
    sql: `
      CREATE TABLE agent_audit (
        seq BIGSERIAL PRIMARY KEY,
        at TEXT NOT NULL,
        type TEXT NOT NULL,
        run_id TEXT,
        tool_name TEXT,
        host TEXT,
        record TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE
      );
      CREATE INDEX agent_audit_by_run ON agent_audit (run_id, seq);
      -- Append-only even for the table's owner: rows can be added, never changed or removed. The
      -- harness role should also be granted only INSERT and SELECT (see the README).
      CREATE FUNCTION agent_audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN RAISE EXCEPTION 'agent_audit is append-only: % refused', TG_OP; END
      $fn$;
      CREATE TRIGGER agent_audit_no_update_or_delete BEFORE UPDATE OR DELETE ON agent_audit
        FOR EACH ROW EXECUTE FUNCTION agent_audit_refuse_change();
      CREATE TRIGGER agent_audit_no_truncate BEFORE TRUNCATE ON agent_audit
        FOR EACH STATEMENT EXECUTE FUNCTION agent_audit_refuse_change();
      REVOKE UPDATE, DELETE, TRUNCATE ON agent_audit FROM PUBLIC;
    `,
  },
  {
    version: 3,
    description: "agent runs: a header updated by compare-and-set, and two append-only lists",
    // JSON is kept as text, not jsonb: jsonb refuses a NUL in a string and reorders keys, and a
    // run's record must come back exactly as it was saved.
    sql: `
      CREATE TABLE agent_runs (
        run_id TEXT PRIMARY KEY,
        version INTEGER NOT NULL,
        status TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        prompt TEXT NOT NULL,
        header_json TEXT NOT NULL
      );
      CREATE INDEX agent_runs_newest_first ON agent_runs (created_at DESC);
      CREATE TABLE agent_run_messages (
        run_id TEXT NOT NULL REFERENCES agent_runs (run_id),
        seq INTEGER NOT NULL,
        message_json TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE agent_run_calls (
        run_id TEXT NOT NULL REFERENCES agent_runs (run_id),
        seq INTEGER NOT NULL,
        call_json TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
    `,
  },
  {
    version: 4,
    description: "voided approvals, and everything an approval's digest binds (input, cwd, network)",
    // The input is JSON text, not jsonb, for the reason given at version 3. Rows saved before keep
    // NULL there: their input is in the run that asked.
    sql: `
      ALTER TABLE agent_approvals DROP CONSTRAINT agent_approvals_status_check;
      ALTER TABLE agent_approvals ADD CONSTRAINT agent_approvals_status_check
        CHECK (status IN ('pending', 'granted', 'denied', 'consumed', 'voided'));
      ALTER TABLE agent_approvals
        ADD COLUMN input_json TEXT,
        ADD COLUMN cwd TEXT,
        ADD COLUMN network TEXT,
        ADD COLUMN voided_at TEXT,
        ADD COLUMN void_reason TEXT;
    `,
  },
  {
    version: 5,
    description: "the digest version each approval was digested under",
    // Every approval saved before was digested under version 1, the only one there was until then.
    sql: `
      ALTER TABLE agent_approvals ADD COLUMN digest_version INTEGER NOT NULL DEFAULT 1;
    `,
  },
  {
    version: 6,
    description:
      "signed decisions and audit rows, and the narrow paths an agent role changes approvals through",
    // An agent role gets no UPDATE on agent_approvals (see team-grants.ts): it inserts requests without
    // naming a status (hence the default), and consumes or voids through these two functions, which
    // can only ever move a row to 'consumed' or 'voided'. They run as their owner (SECURITY DEFINER)
    // with a fixed search_path, so a caller's own objects cannot stand in for the table.
    sql: `
      ALTER TABLE agent_approvals ALTER COLUMN status SET DEFAULT 'pending';
      ALTER TABLE agent_approvals ADD COLUMN decision_key TEXT, ADD COLUMN decision_signature TEXT;
      ALTER TABLE agent_audit ADD COLUMN signer TEXT, ADD COLUMN signature TEXT;
      CREATE FUNCTION agent_consume_approval(p_id TEXT, p_signature TEXT, p_consumed_at TEXT)
        RETURNS BOOLEAN LANGUAGE plpgsql SECURITY DEFINER AS $fn$
        BEGIN
          UPDATE agent_approvals SET status = 'consumed', consumed_at = p_consumed_at
            WHERE id = p_id AND status = 'granted' AND decision_signature IS NOT DISTINCT FROM p_signature;
          RETURN FOUND;
        END
      $fn$;
      CREATE FUNCTION agent_void_approval(p_id TEXT, p_reason TEXT, p_voided_at TEXT, p_voided_by TEXT)
        RETURNS SETOF agent_approvals LANGUAGE plpgsql SECURITY DEFINER AS $fn$
        BEGIN
          RETURN QUERY UPDATE agent_approvals SET status = 'voided', voided_at = p_voided_at,
              void_reason = p_reason, decided_by = COALESCE(decided_by, p_voided_by)
            WHERE id = p_id AND status IN ('pending', 'granted') RETURNING *;
        END
      $fn$;
      DO $do$ BEGIN
        EXECUTE format('ALTER FUNCTION agent_consume_approval(TEXT, TEXT, TEXT) SET search_path = %I, pg_temp', current_schema());
        EXECUTE format('ALTER FUNCTION agent_void_approval(TEXT, TEXT, TEXT, TEXT) SET search_path = %I, pg_temp', current_schema());
      END $do$;
      -- A request moves forward only: pending to granted, denied or voided; granted to consumed or
      -- voided. So an approver role (which may update the decision columns) cannot turn a consumed
      -- grant back into a live one, whose signature would still verify.
      CREATE FUNCTION agent_approvals_forward_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
            (OLD.status = 'pending' AND NEW.status IN ('granted', 'denied', 'voided')) OR
            (OLD.status = 'granted' AND NEW.status IN ('consumed', 'voided'))
          ) THEN
            RAISE EXCEPTION 'agent_approvals: a % request cannot become %', OLD.status, NEW.status;
          END IF;
          IF OLD.status <> 'pending' AND (NEW.decision_signature IS DISTINCT FROM OLD.decision_signature
              OR NEW.decided_at IS DISTINCT FROM OLD.decided_at) THEN
            RAISE EXCEPTION 'agent_approvals: the decision of a % request cannot change', OLD.status;
          END IF;
          RETURN NEW;
        END
      $fn$;
      CREATE TRIGGER agent_approvals_forward_only BEFORE UPDATE ON agent_approvals
        FOR EACH ROW EXECUTE FUNCTION agent_approvals_forward_only();
      REVOKE EXECUTE ON FUNCTION agent_consume_approval(TEXT, TEXT, TEXT) FROM PUBLIC;
      REVOKE EXECUTE ON FUNCTION agent_void_approval(TEXT, TEXT, TEXT, TEXT) FROM PUBLIC;
    `,
  },
  {
    version: 7,
    description: "the flow guard: why a call was held and what tainted its run; files tainted runs wrote",
    // Approvals saved before were judged without taint: NULL. One mark per absolute path, replaced
    // by the next tainted write and removed by a clean one.
    sql: `
      ALTER TABLE agent_approvals ADD COLUMN flow_json TEXT;
      CREATE TABLE agent_tainted_files (
        path TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        run_id TEXT NOT NULL,
        sources_json TEXT NOT NULL,
        marked_at TEXT NOT NULL
      );
      CREATE TABLE agent_taint_windows (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL,
        sources_json TEXT NOT NULL,
        started_at BIGINT NOT NULL,
        ended_at BIGINT
      );
      CREATE INDEX agent_taint_windows_by_start ON agent_taint_windows (started_at);
    `,
  },
  {
    version: 8,
    description: "an approver role decides pending requests only: it cannot consume, void or re-sign one",
    // Column grants let an approver role write the decision columns of any row, and version 6's
    // trigger allowed granted -> consumed and -> voided to anyone who may update, and let the
    // decider's name and key change after a decision. The trigger (not row-level security: it is
    // already where every transition is judged, and it binds the table's owner too) now also
    // refuses: a move to consumed or voided by a role that is not the table's owner (the functions
    // of version 6 run as the owner, and a one-role deployment connects as it); any change of a
    // decided request's decision (who, with which key, when, its signature); and decision fields on
    // a request left pending.
    sql: `
      CREATE OR REPLACE FUNCTION agent_approvals_forward_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
        BEGIN
          IF NEW.status IS DISTINCT FROM OLD.status AND NOT (
            (OLD.status = 'pending' AND NEW.status IN ('granted', 'denied', 'voided')) OR
            (OLD.status = 'granted' AND NEW.status IN ('consumed', 'voided'))
          ) THEN
            RAISE EXCEPTION 'agent_approvals: a % request cannot become %', OLD.status, NEW.status;
          END IF;
          IF NEW.status IS DISTINCT FROM OLD.status AND NEW.status IN ('consumed', 'voided')
              AND NOT pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = TG_RELID), 'MEMBER') THEN
            RAISE EXCEPTION 'agent_approvals: only the store''s own functions make a request %, not role %',
              NEW.status, current_user;
          END IF;
          IF OLD.status <> 'pending' AND (NEW.decision_signature IS DISTINCT FROM OLD.decision_signature
              OR NEW.decided_at IS DISTINCT FROM OLD.decided_at
              OR NEW.decided_by IS DISTINCT FROM OLD.decided_by
              OR NEW.decision_key IS DISTINCT FROM OLD.decision_key) THEN
            RAISE EXCEPTION 'agent_approvals: the decision of a % request cannot change', OLD.status;
          END IF;
          IF NEW.status = 'pending' AND (NEW.decision_signature IS NOT NULL OR NEW.decided_at IS NOT NULL
              OR NEW.decided_by IS NOT NULL OR NEW.decision_key IS NOT NULL) THEN
            RAISE EXCEPTION 'agent_approvals: a pending request carries no decision';
          END IF;
          RETURN NEW;
        END
      $fn$;
    `,
  },
];

// Any constant, the same for every process: migrations of one database run one at a time.
const MIGRATION_LOCK_KEY = 7_416_263_001;

/** The component whose schema {@link POSTGRES_MIGRATIONS} is: the stores of this package. */
export const STORE_COMPONENT = "store-postgres";

/**
 * Brings one component's schema up to date in one transaction under an advisory lock, so processes
 * on several machines starting at once apply each step exactly once. A component is a named set of
 * migrations with its own version numbers (this package's stores; an application's own tables), so
 * each can evolve on its own. Refuses a database migrated by a newer version of the component rather
 * than guessing at a schema it does not know.
 */
export async function migrate(
  client: PoolClient,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
  component: string = STORE_COMPONENT,
): Promise<number> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
    const current = await appliedVersion(client, component);
    const newest = migrations.at(-1)?.version ?? 0;
    if (current > newest) {
      throw new StorePostgresError(
        STORE_POSTGRES_ERROR_CODES.schemaNewer,
        `the database's ${component} schema is version ${current}, newer than this version knows (${newest}); upgrade the harness`,
      );
    }
    // Up to date: no DDL at all, so a role without CREATE (an agent or approver role) opens it too.
    if (current === newest) {
      await client.query("COMMIT");
      return newest;
    }
    await client.query(`
      CREATE TABLE IF NOT EXISTS agent_schema_migrations (
        component TEXT NOT NULL,
        version INTEGER NOT NULL,
        description TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (component, version)
      )`);
    for (const step of migrations) {
      if (step.version <= current) continue;
      await step.rewrite?.(client);
      await client.query(step.sql);
      await client.query(
        "INSERT INTO agent_schema_migrations (component, version, description) VALUES ($1, $2, $3)",
        [component, step.version, step.description],
      );
    }
    await client.query("COMMIT");
    return newest;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

// The version of `component` the database is at: 0 before its first migration, or before any at all.
async function appliedVersion(client: PoolClient, component: string): Promise<number> {
  const table = await client.query<{ present: boolean }>(
    "SELECT to_regclass('agent_schema_migrations') IS NOT NULL AS present",
  );
  if (!table.rows[0]?.present) return 0;
  const applied = await client.query<{ version: number }>(
    "SELECT COALESCE(MAX(version), 0)::int AS version FROM agent_schema_migrations WHERE component = $1",
    [component],
  );
  return applied.rows[0]?.version ?? 0;
}
