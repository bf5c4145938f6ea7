import type {
  ApprovalRecord,
  ApprovalStatus,
  ApprovalStore,
  NetworkPolicy,
  NewApprovalRequest,
  SavedApproval,
} from "@agent/policy";
import {
  approvalFlowOf,
  approvalIdTaken,
  approvalNotFound,
  assertDecidable,
  createApprovalId,
  restoreApprovalFlow,
} from "@agent/policy";
import type { JsonValue, ToolEffect } from "@agent/tools";
import type Database from "better-sqlite3";
import { createGrantConsumer, type GrantConsumer } from "./grant-consumption.js";

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
  unverified_hints_json: string | null;
  status: ApprovalStatus;
  created_at: string;
  decided_at: string | null;
  consumed_at: string | null;
  input_json: string | null;
  cwd: string | null;
  /** The network policy as JSON text (it may be an allow-list object). */
  network: string | null;
  voided_at: string | null;
  void_reason: string | null;
  decided_by: string | null;
  flow_json: string | null;
}

// rowid breaks ties between requests created in the same millisecond: it is the order they were saved.
const OLDEST_FIRST = "ORDER BY created_at, rowid";

/** Options of {@link SqliteApprovalStore}. */
export interface SqliteApprovalStoreOptions {
  /** The clock for decisions and consumption; defaults to the system clock. */
  now?: () => Date;
  /** Who takes this process's decisions (e.g. the OS user), recorded on each one; nobody by default. */
  decidedBy?: string;
  /** Mints the id of each saved request that brings none; defaults to `apr_<uuid>`. */
  createId?: () => string;
}

/**
 * An {@link ApprovalStore} in a SQLite state database: requests and grants survive the process, and
 * every state change is one write transaction, so concurrent processes see one consistent history.
 * Get one from `createSqliteState` or `openSqliteState` (`@agent/store-sqlite/file`).
 */
export class SqliteApprovalStore implements ApprovalStore {
  readonly #database: Database.Database;
  readonly #now: () => Date;
  readonly #decidedBy: string | null;
  readonly #statements: ReturnType<typeof prepareStatements>;
  readonly #consumeGrant: GrantConsumer;
  readonly #createId: () => string;

  /** Wraps an open, migrated state database (see `migrateSqliteDatabase`). */
  constructor(database: Database.Database, options: SqliteApprovalStoreOptions = {}) {
    this.#database = database;
    this.#now = options.now ?? (() => new Date());
    this.#decidedBy = options.decidedBy ?? null;
    this.#statements = prepareStatements(database);
    this.#consumeGrant = createGrantConsumer(database);
    this.#createId = options.createId ?? createApprovalId;
  }

  /** Saves a pending request under a new id, or answers the one already pending for its run and digest. */
  async saveApprovalRequest(request: NewApprovalRequest): Promise<SavedApproval> {
    const save = this.#database.transaction((): SavedApproval => {
      const pending = this.#statements.pendingFor.get(request.runId, request.actionDigest) as
        | ApprovalRow
        | undefined;
      if (pending) return { record: toRecord(pending), created: false };
      const id = request.id ?? this.#createId();
      if (this.#statements.byId.get(id)) throw approvalIdTaken(id);
      this.#statements.insert.run({
        id,
        run_id: request.runId,
        call_id: request.callId,
        tool_name: request.toolName,
        effect: request.effect,
        action_digest: request.actionDigest,
        digest_version: request.digestVersion,
        tool_fingerprint: request.toolFingerprint,
        summary: request.summary,
        input_preview: request.inputPreview,
        unverified_hints_json:
          request.unverifiedHints === undefined ? null : JSON.stringify(request.unverifiedHints),
        created_at: request.createdAt,
        input_json: request.input === undefined ? null : JSON.stringify(request.input),
        cwd: request.cwd ?? null,
        network: request.network === undefined ? null : JSON.stringify(request.network),
        flow_json: jsonOrNull(approvalFlowOf(request)),
      });
      return { record: toRecord(this.#statements.byId.get(id) as ApprovalRow), created: true };
    });
    return save.immediate();
  }

  /** The request with this id, if any. */
  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    const row = this.#statements.byId.get(id) as ApprovalRow | undefined;
    return row && toRecord(row);
  }

  /** The newest request for this run and digest, whatever its status. */
  async findLatestApproval(runId: string, actionDigest: string): Promise<ApprovalRecord | undefined> {
    const row = this.#statements.latestFor.get(runId, actionDigest) as ApprovalRow | undefined;
    return row && toRecord(row);
  }

  /** Requests, oldest first, optionally only those with one status. */
  async listApprovals(filter: { status?: ApprovalStatus } = {}): Promise<ApprovalRecord[]> {
    const rows =
      filter.status === undefined
        ? this.#statements.all.all()
        : this.#statements.withStatus.all(filter.status);
    return (rows as ApprovalRow[]).map(toRecord);
  }

  /** Grants a pending request; throws `PolicyError` (`approval_not_found` / `approval_not_pending`) otherwise. */
  async grantApproval(id: string): Promise<ApprovalRecord> {
    return this.#decide(id, "granted");
  }

  /** Denies a pending request; throws as {@link SqliteApprovalStore.grantApproval} does. */
  async denyApproval(id: string): Promise<ApprovalRecord> {
    return this.#decide(id, "denied");
  }

  /** Consumes the oldest grant of this run for exactly this digest: `true` at most once per grant, across processes. */
  async consumeApprovalGrant(runId: string, actionDigest: string): Promise<boolean> {
    return this.#consumeGrant(runId, actionDigest, this.#now().toISOString());
  }

  /** Voids a pending or granted request in one write transaction; `undefined` if it is neither any more. */
  async voidApproval(id: string, reason: string): Promise<ApprovalRecord | undefined> {
    const voidIt = this.#database.transaction((): ApprovalRecord | undefined => {
      if (!this.#statements.byId.get(id)) throw approvalNotFound(id);
      const { changes } = this.#statements.voidOpen.run(
        this.#now().toISOString(),
        reason,
        this.#decidedBy,
        id,
      );
      return changes === 1 ? toRecord(this.#statements.byId.get(id) as ApprovalRow) : undefined;
    });
    return voidIt.immediate();
  }

  #decide(id: string, status: "granted" | "denied"): ApprovalRecord {
    const decide = this.#database.transaction((): ApprovalRecord => {
      const row = this.#statements.byId.get(id) as ApprovalRow | undefined;
      assertDecidable(id, row);
      this.#statements.decide.run(status, this.#now().toISOString(), this.#decidedBy, id);
      return toRecord(this.#statements.byId.get(id) as ApprovalRow);
    });
    return decide.immediate();
  }
}

function prepareStatements(database: Database.Database) {
  return {
    byId: database.prepare("SELECT * FROM approvals WHERE id = ?"),
    pendingFor: database.prepare(
      `SELECT * FROM approvals WHERE run_id = ? AND action_digest = ? AND status = 'pending' ${OLDEST_FIRST} LIMIT 1`,
    ),
    latestFor: database.prepare(
      "SELECT * FROM approvals WHERE run_id = ? AND action_digest = ? ORDER BY created_at DESC, rowid DESC LIMIT 1",
    ),
    all: database.prepare(`SELECT * FROM approvals ${OLDEST_FIRST}`),
    withStatus: database.prepare(`SELECT * FROM approvals WHERE status = ? ${OLDEST_FIRST}`),
    insert: database.prepare(`
      INSERT INTO approvals (id, run_id, call_id, tool_name, effect, action_digest, digest_version,
        tool_fingerprint, summary, input_preview, unverified_hints_json, status, created_at, input_json, cwd, network,
        flow_json)
      VALUES (@id, @run_id, @call_id, @tool_name, @effect, @action_digest, @digest_version,
        @tool_fingerprint, @summary, @input_preview, @unverified_hints_json, 'pending', @created_at, @input_json,
        @cwd, @network, @flow_json)`),
    decide: database.prepare(
      "UPDATE approvals SET status = ?, decided_at = ?, decided_by = ? WHERE id = ? AND status = 'pending'",
    ),
    // The status is re-checked in the UPDATE itself: a grant consumed meanwhile stays consumed.
    // Voiding a grant keeps who granted it; a pending request records whose CLI voided it.
    voidOpen: database.prepare(
      `UPDATE approvals SET status = 'voided', voided_at = ?, void_reason = ?, decided_by = COALESCE(decided_by, ?)
       WHERE id = ? AND status IN ('pending', 'granted')`,
    ),
  };
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
  if (row.unverified_hints_json !== null) {
    record.unverifiedHints = JSON.parse(row.unverified_hints_json) as Record<string, JsonValue>;
  }
  if (row.input_json !== null) record.input = JSON.parse(row.input_json) as JsonValue;
  if (row.cwd !== null) record.cwd = row.cwd;
  if (row.network !== null) record.network = JSON.parse(row.network) as NetworkPolicy;
  if (row.decided_at !== null) record.decidedAt = row.decided_at;
  if (row.consumed_at !== null) record.consumedAt = row.consumed_at;
  if (row.voided_at !== null) record.voidedAt = row.voided_at;
  if (row.void_reason !== null) record.voidReason = row.void_reason;
  if (row.decided_by !== null) record.decidedBy = row.decided_by;
  if (row.flow_json !== null) restoreApprovalFlow(record, JSON.parse(row.flow_json));
  return record;
}

function jsonOrNull(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}
