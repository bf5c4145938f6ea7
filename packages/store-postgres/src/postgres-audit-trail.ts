import {
  type AgentEvent,
  type AuditLimits,
  DEFAULT_AUDIT_LIMITS,
  type EventSink,
  serializeForAudit,
  sha256Hex,
} from "@agent/tools";
import type { Pool, PoolClient } from "pg";
import { translateDatabaseError } from "./errors.js";
import { auditRowMessage, type RecordSigner, type SignatureVerifier } from "./signatures.js";

/** The `prev_hash` of the first row: the chain starts from nothing. */
export const AUDIT_CHAIN_ORIGIN = "0".repeat(64);

// Writers of one database append one at a time, so each row's prev_hash is the row before it.
const AUDIT_CHAIN_LOCK_KEY = 7_416_263_002;
// Rows written in one transaction, at most.
const BATCH_SIZE = 500;

/** Options of {@link createPostgresAuditSink}. */
export interface PostgresAuditSinkOptions {
  /** The machine that writes, recorded with each row. */
  host?: string;
  limits?: AuditLimits;
  /** Told when a batch cannot be written; the batch is kept and retried by the next write or flush. */
  onError?: (error: unknown) => void;
  /**
   * Signs each row's chain hash with this writer's key (kept outside the database), so a row the
   * database's owner forges or re-chains fails {@link verifyAuditChain} given the writers' public keys.
   */
  signer?: RecordSigner;
  /** Told, after each committed batch, the newest row this writer added: keep it outside the database as a checkpoint. */
  onCommitted?: (head: AuditChainHead) => void;
}

/** A row of the chain to check against later: its hash, and its position (1 is the oldest row). */
export interface AuditChainHead {
  hash: string;
  /** The row's `seq` (sequence numbers may skip: a rolled-back append uses some up). */
  seq: number;
}

/** An audit sink writing to the `agent_audit` table. */
export interface PostgresAuditSink extends EventSink {
  /** Resolves once everything emitted so far is committed; rejects if the database refused it. */
  flush(): Promise<void>;
  /** Flushes, then refuses later events (reported through `onError`). */
  close(): Promise<void>;
}

/**
 * Appends events to the hash-chained `agent_audit` table: each row's `hash` is sha256 of the previous
 * row's hash and this row's record, so a changed, removed or reordered row breaks the chain
 * ({@link verifyAuditChain} finds where). `emit` never blocks the call it audits: records are queued
 * and committed in batches, in order; keep the local JSONL trail beside it for records that must
 * reach the disk before the call runs.
 */
export function createPostgresAuditSink(
  pool: Pool,
  options: PostgresAuditSinkOptions = {},
): PostgresAuditSink {
  const limits = options.limits ?? DEFAULT_AUDIT_LIMITS;
  const onError = options.onError ?? (() => {});
  const queue: Array<{ event: AgentEvent; record: string }> = [];
  let draining: Promise<void> | undefined;
  let closed = false;

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.slice(0, BATCH_SIZE);
      const head = await appendBatch(pool, batch, options.host ?? null, options.signer);
      options.onCommitted?.(head);
      queue.splice(0, batch.length);
    }
  };
  const start = (): Promise<void> => {
    draining ??= drain().finally(() => {
      draining = undefined;
    });
    return draining;
  };

  return {
    emit(event) {
      if (closed) {
        onError(new Error(`audit event "${event.type}" emitted after the PostgreSQL audit trail was closed`));
        return;
      }
      queue.push({ event, record: serializeForAudit(event, limits) });
      start().catch(onError);
    },
    async flush() {
      // A failed batch stays queued: try it again now, and report if it still fails.
      while (queue.length > 0) await start();
      await draining;
    },
    async close() {
      try {
        await this.flush();
      } finally {
        closed = true;
      }
    },
  };
}

async function appendBatch(
  pool: Pool,
  batch: ReadonlyArray<{ event: AgentEvent; record: string }>,
  host: string | null,
  signer: RecordSigner | undefined,
): Promise<AuditChainHead> {
  let client: PoolClient | undefined;
  try {
    client = await pool.connect();
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [AUDIT_CHAIN_LOCK_KEY]);
    const last = await client.query<{ hash: string }>(
      "SELECT hash FROM agent_audit ORDER BY seq DESC LIMIT 1",
    );
    let previous = last.rows[0]?.hash ?? AUDIT_CHAIN_ORIGIN;
    const columns: Record<
      "at" | "type" | "runId" | "toolName" | "record" | "prev" | "hash" | "signature",
      Array<string | null>
    > = {
      at: [],
      type: [],
      runId: [],
      toolName: [],
      record: [],
      prev: [],
      hash: [],
      signature: [],
    };
    for (const { event, record } of batch) {
      const hash = chainHash(previous, record);
      columns.at.push(event.at);
      columns.type.push(event.type);
      columns.runId.push("runId" in event ? event.runId : null);
      columns.toolName.push(
        "toolName" in event && typeof event.toolName === "string" ? event.toolName : null,
      );
      columns.record.push(record);
      columns.prev.push(previous);
      columns.hash.push(hash);
      columns.signature.push(signer ? signer.sign(auditRowMessage(hash)) : null);
      previous = hash;
    }
    const inserted = await client.query<{ seq: string }>(
      `INSERT INTO agent_audit (at, type, run_id, tool_name, host, signer, record, prev_hash, hash, signature)
       SELECT at, type, run_id, tool_name, $1, $2, record, prev_hash, hash, signature
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
         WITH ORDINALITY AS t(at, type, run_id, tool_name, record, prev_hash, hash, signature, position)
       ORDER BY position
       RETURNING seq`,
      [
        host,
        signer?.keyId ?? null,
        columns.at,
        columns.type,
        columns.runId,
        columns.toolName,
        columns.record,
        columns.prev,
        columns.hash,
        columns.signature,
      ],
    );
    await client.query("COMMIT");
    return { hash: previous, seq: Math.max(...inserted.rows.map((row) => Number(row.seq))) };
  } catch (error) {
    await client?.query("ROLLBACK").catch(() => {});
    return translateDatabaseError(error, "append to the audit trail");
  } finally {
    client?.release();
  }
}

/** sha256 of the previous row's hash and this row's record: what links a row to the one before it. */
export function chainHash(previousHash: string, record: string): string {
  return sha256Hex(`${previousHash}\n${record}`);
}

/** The outcome of {@link verifyAuditChain}; `head` is the newest row, to keep as the next checkpoint. */
export type AuditChainVerdict =
  | { ok: true; rows: number; head?: AuditChainHead }
  | { ok: false; rows: number; brokenAt: number; reason: string };

/** What {@link verifyAuditChain} checks beyond the hashes: who wrote each row, and where the trail must reach. */
export interface AuditChainExpectations {
  /** The writers' public keys: every row must carry a signature of one of them. */
  writers?: SignatureVerifier;
  /** Rows known to have been written (kept outside the database): each must still be in the chain. */
  checkpoints?: readonly AuditChainHead[];
}

/**
 * Re-computes the chain over the whole table, oldest first, and reports the first row that does not
 * follow from the one before it (changed, removed, inserted out of order), that no trusted writer
 * signed (forged, or the chain re-computed), or a checkpoint the trail no longer reaches (its tail
 * removed). Without `writers` and `checkpoints` it only proves the rows consistent with each other:
 * whoever can write the table can re-chain it.
 */
export async function verifyAuditChain(
  pool: Pool,
  expectations: AuditChainExpectations = {},
): Promise<AuditChainVerdict> {
  const pending = new Map((expectations.checkpoints ?? []).map((head) => [head.seq, head.hash]));
  let previous = AUDIT_CHAIN_ORIGIN;
  let after = 0;
  let rows = 0;
  for (;;) {
    const page = await pool
      .query<AuditRow>(
        "SELECT seq, record, prev_hash, hash, signer, signature FROM agent_audit WHERE seq > $1 ORDER BY seq LIMIT 1000",
        [after],
      )
      .catch((error: unknown) => translateDatabaseError(error, "read the audit trail"));
    if (page.rows.length === 0) break;
    for (const row of page.rows) {
      const seq = Number(row.seq);
      const problem =
        rowProblem(row, previous, expectations.writers) ?? checkpointProblem(pending, seq, row.hash);
      if (problem) return { ok: false, rows, brokenAt: seq, reason: problem };
      pending.delete(seq);
      previous = row.hash;
      after = seq;
      rows += 1;
    }
  }
  const [missing] = [...pending.keys()].sort((a, b) => a - b);
  if (missing !== undefined) {
    return {
      ok: false,
      rows,
      brokenAt: missing,
      reason: `the trail ends before row ${missing}, which a writer recorded: its tail was removed`,
    };
  }
  return rows === 0 ? { ok: true, rows } : { ok: true, rows, head: { hash: previous, seq: after } };
}

interface AuditRow {
  seq: string;
  record: string;
  prev_hash: string;
  hash: string;
  signer: string | null;
  signature: string | null;
}

function rowProblem(
  row: AuditRow,
  previous: string,
  writers: SignatureVerifier | undefined,
): string | undefined {
  if (row.prev_hash !== previous) return "does not follow the row before it (a row was removed or reordered)";
  if (chainHash(previous, row.record) !== row.hash) return "its record was changed after it was written";
  if (
    writers &&
    (row.signer === null ||
      row.signature === null ||
      !writers.verify(row.signer, auditRowMessage(row.hash), row.signature))
  ) {
    return "no trusted writer key signed it (forged, or the chain was re-computed)";
  }
  return undefined;
}

function checkpointProblem(pending: Map<number, string>, seq: number, hash: string): string | undefined {
  // A checkpoint's row is still there, unchanged, or the chain was rewritten from before it.
  const expected = pending.get(seq);
  if (expected !== undefined && expected !== hash)
    return `differs from the checkpoint a writer recorded for row ${seq}`;
  for (const checkpointSeq of pending.keys()) {
    if (checkpointSeq < seq) return `row ${checkpointSeq}, which a writer recorded, is gone`;
  }
  return undefined;
}

/** Filters of {@link readAuditRecords}. */
export interface AuditReadFilter {
  runId?: string;
  /** Only rows after this sequence number (for following). */
  afterSeq?: number;
  limit?: number;
}

/** Audit records (the JSON lines, as written), oldest first, with their sequence numbers. */
export async function readAuditRecords(
  pool: Pool,
  filter: AuditReadFilter = {},
): Promise<Array<{ seq: number; record: string }>> {
  const result = await pool
    .query<{ seq: string; record: string }>(
      `SELECT seq, record FROM agent_audit
       WHERE seq > $1 AND ($2::text IS NULL OR run_id = $2)
       ORDER BY seq LIMIT $3`,
      [filter.afterSeq ?? 0, filter.runId ?? null, filter.limit ?? 10_000],
    )
    .catch((error: unknown) => translateDatabaseError(error, "read the audit trail"));
  return result.rows.map((row) => ({ seq: Number(row.seq), record: row.record }));
}
