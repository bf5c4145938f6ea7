import type Database from "better-sqlite3";

/**
 * Marks the oldest grant of a run for exactly one action consumed, if there is one. The inner SELECT
 * picks the grant and the outer `status = 'granted'` re-checks it, so however statements interleave,
 * one grant changes state once.
 */
const CONSUME_GRANT_SQL = `
  UPDATE approvals SET status = 'consumed', consumed_at = ?
  WHERE id = (
    SELECT id FROM approvals
    WHERE run_id = ? AND action_digest = ? AND status = 'granted'
    ORDER BY created_at, rowid
    LIMIT 1
  ) AND status = 'granted'`;

const statements = new WeakMap<Database.Database, Database.Statement>();

/**
 * Consumes one grant of `runId` for `actionDigest`: `true` if this call used it, `false` if there was
 * none left. Runs in a `BEGIN IMMEDIATE` transaction, so of any number of connections (processes
 * included) racing for one grant, exactly one gets `true`.
 */
export function consumeGrant(
  database: Database.Database,
  runId: string,
  actionDigest: string,
  consumedAt: string,
): boolean {
  let statement = statements.get(database);
  if (!statement) {
    statement = database.prepare(CONSUME_GRANT_SQL);
    statements.set(database, statement);
  }
  return database.transaction(() => statement.run(consumedAt, runId, actionDigest).changes === 1).immediate();
}
