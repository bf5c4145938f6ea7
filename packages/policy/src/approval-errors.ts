import type { ApprovalStatus } from "./approval-store.js";
import { POLICY_ERROR_CODES, PolicyError } from "./errors.js";

/** The error every store throws when a new request reuses an existing id. */
export function approvalIdTaken(id: string): PolicyError {
  return new PolicyError(
    POLICY_ERROR_CODES.approvalIdTaken,
    `An approval request with id "${id}" already exists; give each new request a fresh id.`,
  );
}

/** The error every store throws for an id no request has. */
export function approvalNotFound(id: string): PolicyError {
  return new PolicyError(
    POLICY_ERROR_CODES.approvalNotFound,
    `No approval request has id "${id}"; list pending ones to find it.`,
  );
}

/**
 * Throws the error every store throws when a request cannot be granted or denied: it does not exist
 * (`approval_not_found`) or is no longer pending (`approval_not_pending`).
 */
export function assertDecidable<T extends { status: ApprovalStatus }>(
  id: string,
  record: T | undefined,
): asserts record is T {
  if (!record) throw approvalNotFound(id);
  if (record.status !== "pending") {
    throw new PolicyError(
      POLICY_ERROR_CODES.approvalNotPending,
      `Approval request "${id}" is already ${record.status}; only a pending request can be granted or denied.`,
    );
  }
}
