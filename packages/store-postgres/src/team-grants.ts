import { STORE_POSTGRES_ERROR_CODES, StorePostgresError } from "./errors.js";

/** The two database roles of a team (each a login role, or a group its login roles are members of). */
export interface PostgresTeamRoles {
  /** The harness on every machine: saves requests, runs, audit rows; consumes grants; never decides. */
  agent: string;
  /** The operators: read everything, decide pending requests, append to the audit trail. */
  approver: string;
  /** The schema the tables are in (default `public`). */
  schema?: string;
}

// The request columns an agent writes. Not the decision columns (status, decided_*, decision_*),
// nor consumed_at / voided_*: those change only through the functions of migration 6.
const REQUEST_COLUMNS =
  "id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint, summary, input_preview, " +
  "unverified_hints, created_at, requested_on_host, input_json, cwd, network, digest_version, flow_json";
const DECISION_COLUMNS = "status, decided_at, decided_by, decision_key, decision_signature";

/**
 * The `GRANT` statements, run once by the owner after the migrations, that give each role of a team
 * only what it needs: the agent role cannot set a decision, by any statement; the approver role can
 * decide but not consume, void or write runs; neither can change or remove an audit row or the
 * schema. Correct on PostgreSQL 15 and later (where `PUBLIC` has no `CREATE` on `public`) and before.
 */
export function postgresTeamGrants(roles: PostgresTeamRoles): string {
  const agent = roleName(roles.agent);
  const approver = roleName(roles.approver);
  const schema = roleName(roles.schema ?? "public");
  const both = `${agent}, ${approver}`;
  return [
    // PostgreSQL 15 revoked CREATE on public from PUBLIC; USAGE is granted here in case it was too.
    `GRANT USAGE ON SCHEMA ${schema} TO ${both};`,
    `GRANT SELECT ON agent_schema_migrations, agent_approvals, agent_runs, agent_run_messages, agent_run_calls, agent_audit TO ${both};`,
    `GRANT INSERT ON agent_audit TO ${both};`,
    `GRANT USAGE ON SEQUENCE agent_audit_seq_seq TO ${both};`,
    `GRANT INSERT (${REQUEST_COLUMNS}) ON agent_approvals TO ${agent};`,
    `GRANT USAGE ON SEQUENCE agent_approvals_seq_seq TO ${agent};`,
    `GRANT EXECUTE ON FUNCTION agent_consume_approval(TEXT, TEXT, TEXT), agent_void_approval(TEXT, TEXT, TEXT, TEXT) TO ${agent};`,
    `GRANT INSERT, UPDATE ON agent_runs TO ${agent};`,
    // The flow guard's marks: agents mark, clear and read the files tainted runs wrote, and their windows.
    `GRANT SELECT, INSERT, UPDATE, DELETE ON agent_tainted_files TO ${agent};`,
    `GRANT SELECT, INSERT, UPDATE ON agent_taint_windows TO ${agent};`,
    `GRANT INSERT ON agent_run_messages, agent_run_calls TO ${agent};`,
    `GRANT UPDATE (${DECISION_COLUMNS}) ON agent_approvals TO ${approver};`,
  ].join("\n");
}

// Names are checked, not quoted: a plain lowercase name means the same quoted or not, and is safe in SQL.
function roleName(name: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new StorePostgresError(
      STORE_POSTGRES_ERROR_CODES.invalidName,
      `"${name}" is not a plain role or schema name; use lowercase letters, digits and underscores`,
    );
  }
  return name;
}
