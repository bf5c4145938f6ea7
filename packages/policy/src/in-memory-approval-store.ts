import { approvalIdTaken, approvalNotFound, assertDecidable } from "./approval-errors.js";
import { createApprovalId } from "./approval-id.js";
import type {
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStatus,
  ApprovalStore,
  NewApprovalRequest,
  SavedApproval,
} from "./approval-store.js";

/** Options of {@link InMemoryApprovalStore}. */
export interface InMemoryApprovalStoreOptions {
  /** The clock for `decidedAt` and `consumedAt`; defaults to the system clock. */
  now?: () => Date;
  /** Mints the id of each saved request that brings none; defaults to `apr_<uuid>`. */
  createId?: () => string;
}

/**
 * An {@link ApprovalStore} in one process's memory, for tests and short-lived runs. Every method does
 * its work synchronously before its promise settles, so concurrent callers in this process never
 * interleave inside one; in particular each grant is consumed at most once. Records are copied in and
 * out: changing a returned record never changes the store.
 */
export class InMemoryApprovalStore implements ApprovalStore {
  // A Map keeps insertion order, which is the order requests were saved.
  readonly #records = new Map<string, ApprovalRecord>();
  readonly #now: () => Date;
  readonly #createId: () => string;

  constructor(options: InMemoryApprovalStoreOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#createId = options.createId ?? createApprovalId;
  }

  /** Saves a pending request under a new id, or answers the one already pending for its run and digest. */
  async saveApprovalRequest(request: NewApprovalRequest): Promise<SavedApproval> {
    const pending = this.#find(
      (record) => isFor(record, request.runId, request.actionDigest) && record.status === "pending",
    );
    if (pending) return { record: copy(pending), created: false };
    const id = request.id ?? this.#createId();
    if (this.#records.has(id)) throw approvalIdTaken(id);
    const record: ApprovalRecord = { ...copy(request), id, status: "pending" };
    this.#records.set(id, record);
    return { record: copy(record), created: true };
  }

  /** The request with this id, if any. */
  async getApproval(id: string): Promise<ApprovalRecord | undefined> {
    const record = this.#records.get(id);
    return record && copy(record);
  }

  /** The newest request for this run and digest, whatever its status. */
  async findLatestApproval(runId: string, actionDigest: string): Promise<ApprovalRecord | undefined> {
    const records = [...this.#records.values()];
    for (let index = records.length - 1; index >= 0; index -= 1) {
      const record = records[index];
      if (record && isFor(record, runId, actionDigest)) return copy(record);
    }
    return undefined;
  }

  /** Requests, oldest first, optionally only those with one status. */
  async listApprovals(filter: { status?: ApprovalStatus } = {}): Promise<ApprovalRecord[]> {
    return [...this.#records.values()]
      .filter((record) => filter.status === undefined || record.status === filter.status)
      .map(copy);
  }

  /** Grants a pending request; throws `PolicyError` (`approval_not_found` / `approval_not_pending`) otherwise. */
  async grantApproval(id: string): Promise<ApprovalRecord> {
    return this.#decide(id, "granted");
  }

  /** Denies a pending request; throws as {@link InMemoryApprovalStore.grantApproval} does. */
  async denyApproval(id: string): Promise<ApprovalRecord> {
    return this.#decide(id, "denied");
  }

  /** Marks the oldest grant of this run for exactly this digest consumed: `true` at most once per grant. */
  async consumeApprovalGrant(runId: string, actionDigest: string): Promise<boolean> {
    const grant = this.#find((record) => isFor(record, runId, actionDigest) && record.status === "granted");
    if (!grant) return false;
    grant.status = "consumed";
    grant.consumedAt = this.#now().toISOString();
    return true;
  }

  /** Voids a pending or granted request; `undefined` if it is neither any more. */
  async voidApproval(id: string, reason: string): Promise<ApprovalRecord | undefined> {
    const record = this.#records.get(id);
    if (!record) throw approvalNotFound(id);
    if (record.status !== "pending" && record.status !== "granted") return undefined;
    record.status = "voided";
    record.voidedAt = this.#now().toISOString();
    record.voidReason = reason;
    return copy(record);
  }

  #decide(id: string, status: "granted" | "denied"): ApprovalRecord {
    const record = this.#records.get(id);
    assertDecidable(id, record);
    record.status = status;
    record.decidedAt = this.#now().toISOString();
    return copy(record);
  }

  #find(predicate: (record: ApprovalRecord) => boolean): ApprovalRecord | undefined {
    for (const record of this.#records.values()) if (predicate(record)) return record;
    return undefined;
  }
}

function isFor(record: ApprovalRecord, runId: string, actionDigest: string): boolean {
  return record.runId === runId && record.actionDigest === actionDigest;
}

function copy<T extends Omit<ApprovalRequest, "id">>(record: T): T {
  return structuredClone(record);
}
