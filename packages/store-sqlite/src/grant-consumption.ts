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

/** Consumes one grant of a run for a digest: `true` if this call used it, `false` if none was left. */
export type GrantConsumer = (runId: string, actionDigest: string, consumedAt: string) => boolean;

/**
 * The grant consumer of one open database, its statement prepared once. Each call runs in a
 * `BEGIN IMMEDIATE` transaction, so of any number of connections (processes included) racing for
 * one grant, exactly one gets `true`.
 */
export function createGrantConsumer(database: Database.Database): GrantConsumer {
  const statement = database.prepare(CONSUME_GRANT_SQL);
  const consume = database.transaction(
    (runId: string, actionDigest: string, consumedAt: string) =>
      statement.run(consumedAt, runId, actionDigest).changes === 1,
  );
  return (runId, actionDigest, consumedAt) => consume.immediate(runId, actionDigest, consumedAt);
}
