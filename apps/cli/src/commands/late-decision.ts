import { type ApprovalRecord, type ApprovalStore, POLICY_ERROR_CODES, PolicyError } from "@agent/policy";
import { safeLine } from "../terminal/io.js";

/**
 * The decision that won, in a few words, for a decision that came too late: `denied by alice at
 * 2030-01-02T03:04:05.000Z`. The console and `agent approvals approve|deny` say it the same way.
 */
export function describeWinningDecision(record: ApprovalRecord | undefined): string {
  if (!record) return "decided";
  const by = record.decidedBy === undefined ? "" : ` by ${safeLine(record.decidedBy)}`;
  const at = record.decidedAt === undefined ? "" : ` at ${record.decidedAt}`;
  const why = record.status === "voided" && record.voidReason ? ` (${safeLine(record.voidReason)})` : "";
  return `${record.status}${by}${at}${why}`;
}

/** Whether `error` is a store's answer that the request was decided before this decision got there. */
export function isLateDecision(error: unknown): error is PolicyError {
  return PolicyError.isInstance(error) && error.code === POLICY_ERROR_CODES.approvalNotPending;
}

/**
 * The error `agent approvals approve|deny` ends with when another decision won: still
 * `approval_not_pending`, now naming the decision that stands and who took it.
 */
export async function lateDecisionError(
  approvals: ApprovalStore,
  id: string,
  context: { cause: PolicyError; agent: string },
): Promise<PolicyError> {
  const record = await approvals.getApproval(id);
  return new PolicyError(
    POLICY_ERROR_CODES.approvalNotPending,
    `Too late: approval request "${safeLine(id)}" was already ${describeWinningDecision(record)}; that decision stands. See it with: ${context.agent} approvals show ${safeLine(id)}`,
    { cause: context.cause },
  );
}
