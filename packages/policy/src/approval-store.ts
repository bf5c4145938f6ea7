import type { JsonValue, ToolEffect } from "@agent/tools";

/** A held call, waiting for a person to approve or deny exactly this action. */
export interface ApprovalRequest {
  id: string;
  runId: string;
  callId: string;
  toolName: string;
  effect: ToolEffect;
  /** sha256 binding the approval to the exact action; see `computeActionDigest`. */
  actionDigest: string;
  /** The tool definition's fingerprint when the request was made. */
  toolFingerprint: string;
  /** One line for the operator: what would run, and any unverified hints from the tool's author. */
  summary: string;
  /** ISO 8601. */
  createdAt: string;
  /** The input as JSON, cut to a bounded length (the full input is bound by the digest). */
  inputPreview: string;
  /** Annotations the tool's author (e.g. a remote server) declared; unverified, for display only. */
  unverifiedHints?: Readonly<Record<string, JsonValue>>;
}

/** Where a request stands. `consumed`: its grant was used by one execution and cannot be used again. */
export type ApprovalStatus = "pending" | "granted" | "denied" | "consumed";

/** A request and what happened to it. */
export interface ApprovalRecord extends ApprovalRequest {
  status: ApprovalStatus;
  /** ISO 8601, when it was granted or denied. */
  decidedAt?: string;
  /** ISO 8601, when its grant was consumed. */
  consumedAt?: string;
}

/**
 * Keeps approval requests and one-shot grants. Implementations must make
 * {@link ApprovalStore.consumeApprovalGrant} atomic: of any number of concurrent consumers
 * (processes included) for one grant, exactly one gets `true`.
 */
export interface ApprovalStore {
  /** Saves a new pending request. If one is already pending for the same run and digest, returns it instead. */
  saveApprovalRequest(request: ApprovalRequest): Promise<ApprovalRecord>;
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
}
