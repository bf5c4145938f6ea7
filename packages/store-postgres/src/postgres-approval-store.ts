import {
  type ApprovalRecord,
  type ApprovalStatus,
  type ApprovalStore,
  approvalFlowOf,
  approvalIdTaken,
  approvalNotFound,
  assertDecidable,
  createApprovalId,
  type NetworkPolicy,
  type NewApprovalRequest,
  restoreApprovalFlow,
  type SavedApproval,
} from "@agent/policy";
import type { JsonValue, ToolEffect } from "@agent/tools";
import type { Pool } from "pg";
import { STORE_POSTGRES_ERROR_CODES, StorePostgresError, translateDatabaseError } from "./errors.js";
import { decisionMessage, type RecordSigner, type SignatureVerifier } from "./signatures.js";

interface ApprovalRow {
  id: string;
  run_id: string;
  call_id: string;
  tool_name: string;
  effect: ToolEffect;
  action_digest: string;
  digest_version: number;
  tool_fingerprint: string;
  summary: string;
  input_preview: string;
  unverified_hints: Record<string, JsonValue> | null;
  status: ApprovalStatus;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  consumed_at: string | null;
  requested_on_host: string | null;
  input_json: string | null;
  cwd: string | null;
  /** The network policy as JSON text (it may be an allow-list object). */
  network: string | null;
  voided_at: string | null;
  void_reason: string | null;
  flow_json: string | null;
  decision_key: string | null;
  decision_signature: string | null;
}

/** Options of {@link PostgresApprovalStore}. */
export interface PostgresApprovalStoreOptions {
  /** The clock for decisions and consumption. */
  now?: () => Date;
  /** Recorded with each request saved from this process (shown to operators on other machines). */
  host?: string;
  /** Recorded with each decision taken from this process: who decided. */
  decidedBy?: string;
  /** Signs each decision taken from this process (an approver's key; see `@agent/store-postgres/keys`). */
  signer?: RecordSigner;
  /**
   * The approvers' public keys. Given, a grant is consumed only if one of them signed it for exactly
   * the action asked about; any other grant (forged in the table, or unsigned) is voided instead.
   */
  trustedApprovers?: SignatureVerifier;
  /** Mints the id of each saved request that brings none; defaults to `apr_<uuid>`. */
  createId?: () => string;
}

/** The `void_reason` of a grant whose signature no trusted approver key verifies. */
export const UNSIGNED_GRANT_REASON =
  "decision_signature_invalid: no trusted approver key signed this grant for this action; ask an approver to approve it again";

// seq breaks ties between requests created in the same millisecond: it is the order they were saved.
const OLDEST_FIRST = "ORDER BY created_at, seq";

/**
 * The {@link ApprovalStore} for harness processes on many machines: one PostgreSQL database holds
 * every request and grant. Every state change is one statement whose `WHERE` re-checks the state it
 * changes, so of any number of processes racing (on any machines) exactly one wins: one decision per
 * request, one consumer per grant. The pool is the caller's: it is not closed here.
 */
export class PostgresApprovalStore implements ApprovalStore {
  readonly #pool: Pool;
  readonly #now: () => Date;
  readonly #host: string | null;
  readonly #decidedBy: string | null;
  readonly #signer: RecordSigner | undefined;
  readonly #trustedApprovers: SignatureVerifier | undefined;
  readonly #createId: () => string;

  /** Wraps a pool on a database migrated with {@link migrate}. */
  constructor(pool: Pool, options: PostgresApprovalStoreOptions = {}) {
    this.#pool = pool;
    this.#now = options.now ?? (() => new Date());
    this.#host = options.host ?? null;
    this.#decidedBy = options.decidedBy ?? null;
    this.#signer = options.signer;
    this.#trustedApprovers = options.trustedApprovers;
    this.#createId = options.createId ?? createApprovalId;
  }

  /** Saves a pending request under a new id, or answers the one already pending for its run and digest. */
  async saveApprovalRequest(request: NewApprovalRequest): Promise<SavedApproval> {
    const id = request.id ?? this.#createId();
    // A request pending for the same action may be decided between our insert and our look-up; then
    // the insert succeeds the next time round. Two rounds always suffice unless an operator decides
    // within microseconds, so a few are plenty.
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const inserted = await this.#query<ApprovalRow>(
        "save an approval request",
        // No status: it defaults to 'pending', and an agent role may not name that column at all.
        `INSERT INTO agent_approvals (id, run_id, call_id, tool_name, effect, action_digest, tool_fingerprint,
           summary, input_preview, unverified_hints, created_at, requested_on_host, input_json, cwd, network,
           digest_version, flow_json)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
         ON CONFLICT DO NOTHING
         RETURNING *`,
        [
          id,
          request.runId,
          request.callId,
          request.toolName,
          request.effect,
          request.actionDigest,
          request.toolFingerprint,
          request.summary,
          request.inputPreview,
          request.unverifiedHints === undefined ? null : JSON.stringify(request.unverifiedHints),
          request.createdAt,
          this.#host,
          request.input === undefined ? null : JSON.stringify(request.input),
          request.cwd ?? null,
          request.network === undefined ? null : JSON.stringify(request.network),
          request.digestVersion,
          jsonOrNull(approvalFlowOf(request)),
        ],
      );
      if (inserted[0]) return { record: toRecord(inserted[0]), created: true };
      const pending = await this.#query<ApprovalRow>(
        "look up a pending approval request",
        `SELECT * FROM agent_approvals WHERE run_id = $1 AND action_digest = $2 AND status = 'pending' ${OLDEST_FIRST} LIMIT 1`,
        [request.runId, request.actionDigest],
      );
      if (pending[0]) return { record: toRecord(pending[0]), created: false };
      if (await this.getApproval(id)) throw approvalIdTaken(id);
    }
    throw new StorePostgresError(
      STORE_POSTGRES_ERROR_CODES.unavailable,
      "could not save the approval request: it kept conflicting; retry",
    );
  }

  /** The request with this id, if any. */
  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    const rows = await this.#query<ApprovalRow>(
      "read an approval request",
      "SELECT * FROM agent_approvals WHERE id = $1",
      [id],
    );
    return rows[0] && toRecord(rows[0]);
  }

  /** The newest request for this run and digest, whatever its status. */
  async findLatestApproval(runId: string, actionDigest: string): Promise<ApprovalRecord | undefined> {
    const rows = await this.#query<ApprovalRow>(
      "read an approval request",
      "SELECT * FROM agent_approvals WHERE run_id = $1 AND action_digest = $2 ORDER BY created_at DESC, seq DESC LIMIT 1",
      [runId, actionDigest],
    );
    return rows[0] && toRecord(rows[0]);
  }

  /** Requests, oldest first, optionally only those with one status. */
  async listApprovals(filter: { status?: ApprovalStatus } = {}): Promise<ApprovalRecord[]> {
    const rows =
      filter.status === undefined
        ? await this.#query<ApprovalRow>(
            "list approval requests",
            `SELECT * FROM agent_approvals ${OLDEST_FIRST}`,
            [],
          )
        : await this.#query<ApprovalRow>(
            "list approval requests",
            `SELECT * FROM agent_approvals WHERE status = $1 ${OLDEST_FIRST}`,
            [filter.status],
          );
    return rows.map(toRecord);
  }

  /** Grants a pending request; throws `PolicyError` (`approval_not_found` / `approval_not_pending`) otherwise. */
  async grantApproval(id: string): Promise<ApprovalRecord> {
    return this.#decide(id, "granted");
  }

  /** Denies a pending request; throws as {@link PostgresApprovalStore.grantApproval} does. */
  async denyApproval(id: string): Promise<ApprovalRecord> {
    return this.#decide(id, "denied");
  }

  /**
   * Consumes the oldest grant of this run for exactly this digest: `true` at most once per grant,
   * across processes and machines. With `trustedApprovers`, a grant whose signature does not verify
   * for this run and digest is voided, never consumed. The consuming statement (a function an agent
   * role may call; it can only set 'consumed') re-checks the status and the signature it was shown,
   * so of concurrent consumers exactly one gets a grant. If the connection breaks after the server
   * committed, this throws: the grant is then spent without an execution, which is the safe side (a
   * second approval is needed, never a second execution).
   */
  async consumeApprovalGrant(runId: string, actionDigest: string): Promise<boolean> {
    const grants = await this.#query<ApprovalRow>(
      "read the approval grants",
      `SELECT * FROM agent_approvals WHERE run_id = $1 AND action_digest = $2 AND status = 'granted' ${OLDEST_FIRST}`,
      [runId, actionDigest],
    );
    for (const grant of grants) {
      if (this.#trustedApprovers && !isSignedGrant(this.#trustedApprovers, grant, runId, actionDigest)) {
        await this.voidApproval(grant.id, UNSIGNED_GRANT_REASON);
        continue;
      }
      const consumed = await this.#query<{ consumed: boolean }>(
        "consume an approval grant",
        "SELECT agent_consume_approval($1, $2, $3) AS consumed",
        [grant.id, grant.decision_signature, this.#now().toISOString()],
      );
      if (consumed[0]?.consumed === true) return true;
    }
    return false;
  }

  /**
   * Voids a pending or granted request in one statement that re-checks the status, so a grant
   * consumed on another machine meanwhile stays consumed; `undefined` if it was neither.
   */
  async voidApproval(id: string, reason: string): Promise<ApprovalRecord | undefined> {
    // Voiding a grant keeps who granted it; a pending request records whose process voided it.
    const rows = await this.#query<ApprovalRow>(
      "void an approval request",
      "SELECT * FROM agent_void_approval($1, $2, $3, $4)",
      [id, reason, this.#now().toISOString(), this.#decidedBy],
    );
    if (rows[0]) return toRecord(rows[0]);
    if (!(await this.getApproval(id))) throw approvalNotFound(id);
    return undefined;
  }

  async #decide(id: string, status: "granted" | "denied"): Promise<ApprovalRecord> {
    const decidedAt = this.#now().toISOString();
    const signed = this.#signer && (await this.#signDecision(id, status, decidedAt, this.#signer));
    const rows = await this.#query<ApprovalRow>(
      "record an approval decision",
      // A signed decision names what it signed: the row must still be that request.
      `UPDATE agent_approvals SET status = $1, decided_at = $2, decided_by = $3, decision_key = $5,
         decision_signature = $6
       WHERE id = $4 AND status = 'pending'
         AND ($7::text IS NULL OR (run_id = $7 AND action_digest = $8 AND digest_version = $9))
       RETURNING *`,
      [
        status,
        decidedAt,
        this.#decidedBy,
        id,
        signed?.keyId ?? null,
        signed?.signature ?? null,
        signed?.runId ?? null,
        signed?.actionDigest ?? null,
        signed?.digestVersion ?? null,
      ],
    );
    if (rows[0]) return toRecord(rows[0]);
    // Lost (or never had) the race: say why with the same errors every store throws.
    const current = await this.getApproval(id);
    assertDecidable(id, current);
    throw new StorePostgresError(
      STORE_POSTGRES_ERROR_CODES.unavailable,
      `approval request "${id}" changed while it was being decided; retry`,
    );
  }

  async #signDecision(id: string, decision: "granted" | "denied", decidedAt: string, signer: RecordSigner) {
    const current = await this.getApproval(id);
    assertDecidable(id, current);
    const { runId, actionDigest, digestVersion } = current;
    const message = decisionMessage({
      id,
      runId,
      actionDigest,
      digestVersion,
      decision,
      decidedAt,
      decidedBy: this.#decidedBy,
      keyId: signer.keyId,
    });
    return { keyId: signer.keyId, signature: signer.sign(message), runId, actionDigest, digestVersion };
  }

  async #query<Row extends object>(doing: string, sql: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.#pool.query<Row>(sql, values)).rows;
    } catch (error) {
      translateDatabaseError(error, doing);
    }
  }
}

// Checked against the run and digest the caller asks about, not the row's own: a row edited to point
// at another action keeps a signature that no longer verifies.
function isSignedGrant(
  approvers: SignatureVerifier,
  row: ApprovalRow,
  runId: string,
  actionDigest: string,
): boolean {
  if (row.decision_key === null || row.decision_signature === null || row.decided_at === null) return false;
  const message = decisionMessage({
    id: row.id,
    runId,
    actionDigest,
    digestVersion: row.digest_version,
    decision: "granted",
    decidedAt: row.decided_at,
    decidedBy: row.decided_by,
    keyId: row.decision_key,
  });
  return approvers.verify(row.decision_key, message, row.decision_signature);
}

function toRecord(row: ApprovalRow): ApprovalRecord {
  const record: ApprovalRecord = {
    id: row.id,
    runId: row.run_id,
    callId: row.call_id,
    toolName: row.tool_name,
    effect: row.effect,
    actionDigest: row.action_digest,
    digestVersion: row.digest_version,
    toolFingerprint: row.tool_fingerprint,
    summary: row.summary,
    createdAt: row.created_at,
    inputPreview: row.input_preview,
    status: row.status,
  };
  if (row.unverified_hints !== null) record.unverifiedHints = row.unverified_hints;
  if (row.input_json !== null) record.input = JSON.parse(row.input_json) as JsonValue;
  if (row.cwd !== null) record.cwd = row.cwd;
  if (row.network !== null) record.network = JSON.parse(row.network) as NetworkPolicy;
  if (row.decided_at !== null) record.decidedAt = row.decided_at;
  if (row.consumed_at !== null) record.consumedAt = row.consumed_at;
  if (row.voided_at !== null) record.voidedAt = row.voided_at;
  if (row.void_reason !== null) record.voidReason = row.void_reason;
  if (row.requested_on_host !== null) record.requestedOnHost = row.requested_on_host;
  if (row.decided_by !== null) record.decidedBy = row.decided_by;
  if (row.flow_json !== null) restoreApprovalFlow(record, JSON.parse(row.flow_json));
  return record;
}

function jsonOrNull(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}
