import type { FlowSource, JsonValue, ToolEffect } from "@agent/tools";
import type { NetworkPolicy } from "./policy.js";

/** A held call, waiting for a person to approve or deny exactly this action. */
export interface ApprovalRequest {
  id: string;
  runId: string;
  callId: string;
  toolName: string;
  effect: ToolEffect;
  /** sha256 binding the approval to the exact action; see `computeActionDigest`. */
  actionDigest: string;
  /**
   * The `ACTION_DIGEST_VERSION` the digest was computed under. A request of an older version can
   * never match a call digested now: the gate voids it (`digest_version_changed`).
   */
  digestVersion: number;
  /** The tool definition's fingerprint when the request was made. */
  toolFingerprint: string;
  /** One line for the operator: what would run, and any unverified hints from the tool's author. */
  summary: string;
  /** ISO 8601. */
  createdAt: string;
  /** The input as JSON, cut to a bounded length (the full input is bound by the digest). */
  inputPreview: string;
  /**
   * Everything else the digest binds, so an operator can see exactly what is approved: the
   * validated input (whole), the cwd and the network policy. `authorize` always sets them; they are
   * absent only from records a store kept before it knew them.
   */
  input?: JsonValue;
  cwd?: string;
  network?: NetworkPolicy;
  /** Annotations the tool's author (e.g. a remote server) declared; unverified, for display only. */
  unverifiedHints?: Readonly<Record<string, JsonValue>>;
  /** `tainted_flow`: the flow guard held the call (a rule would have allowed it in a clean run). */
  heldBy?: "tainted_flow";
  /**
   * The untrusted sources the call's run had taken in, each with the turn it entered at; the digest
   * binds them, so approving the call clean does not approve it tainted. Absent for a clean run.
   */
  taint?: FlowSource[];
}

/**
 * A held call as `authorize` describes it: everything of an {@link ApprovalRequest} but its id, which
 * the store mints when it saves the request (a call the policy allows or denies gets no id).
 */
export type ApprovalDraft = Omit<ApprovalRequest, "id">;

/**
 * What {@link ApprovalStore.saveApprovalRequest} takes: a draft, and an id only where the record
 * already has one (carried over from another store); otherwise the store mints `apr_<uuid>`.
 */
export type NewApprovalRequest = ApprovalDraft & { id?: string };

/** The pending record a save ends with, and whether this save created it (else it was already pending). */
export interface SavedApproval {
  record: ApprovalRecord;
  created: boolean;
}

/**
 * Where a request stands. `consumed`: its grant was used by one execution and cannot be used again.
 * `voided`: its tool's definition changed while it was pending or granted (or it was digested under
 * an older digest version), so it can never apply, not even if the old definition comes back.
 */
export type ApprovalStatus = "pending" | "granted" | "denied" | "consumed" | "voided";

/** A request and what happened to it. */
export interface ApprovalRecord extends ApprovalRequest {
  status: ApprovalStatus;
  /** ISO 8601, when it was granted or denied. */
  decidedAt?: string;
  /** ISO 8601, when its grant was consumed. */
  consumedAt?: string;
  /** ISO 8601, when it was voided. */
  voidedAt?: string;
  /** Why it was voided, e.g. that the tool's definition changed, or `digest_version_changed`. */
  voidReason?: string;
  /** The machine the held call waits on, where the store records it (stores shared by many machines do). */
  requestedOnHost?: string;
  /**
   * Who granted or denied it, where the store records it (e.g. the OS user); for a request voided
   * while still pending, whose process voided it (voiding a grant keeps who granted it).
   */
  decidedBy?: string;
}

/**
 * Keeps approval requests and one-shot grants. Implementations must make
 * {@link ApprovalStore.consumeApprovalGrant} atomic: of any number of concurrent consumers
 * (processes included) for one grant, exactly one gets `true`.
 */
export interface ApprovalStore {
  /**
   * Saves a new pending request under the id it mints (`apr_<uuid>`, unless the request brings one;
   * a reused id throws `PolicyError` `approval_id_taken`). If one is already pending for the same run
   * and digest, answers that one instead, with `created: false`.
   */
  saveApprovalRequest(request: NewApprovalRequest): Promise<SavedApproval>;
  getApproval(id: string): Promise<ApprovalRecord | undefined>;
  /** The newest request for this run and digest, whatever its status. */
  findLatestApproval(runId: string, actionDigest: string): Promise<ApprovalRecord | undefined>;
  /** Requests, oldest first, optionally only those with one status. */
  listApprovals(filter?: { status?: ApprovalStatus }): Promise<ApprovalRecord[]>;
  /** Grants a pending request; throws `PolicyError` (`approval_not_found` / `approval_not_pending`) otherwise. */
  grantApproval(id: string): Promise<ApprovalRecord>;
  /** Denies a pending request; throws as {@link grantApproval} does. */
  denyApproval(id: string): Promise<ApprovalRecord>;
  /** Uses a granted approval of this run for exactly this digest: `true` at most once per grant. */
  consumeApprovalGrant(runId: string, actionDigest: string): Promise<boolean>;
  /**
   * Voids a pending or granted request for good (atomically, like consuming): returns the voided
   * record, or `undefined` if it was no longer pending or granted (consumed, denied or voided
   * meanwhile). Throws `PolicyError` (`approval_not_found`) for an unknown id.
   */
  voidApproval(id: string, reason: string): Promise<ApprovalRecord | undefined>;
}
