import { type EventSink, emitEvent, NULL_EVENT_SINK } from "@agent/tools";
import type { ApprovalRecord, ApprovalStore } from "./approval-store.js";

/**
 * Grants a pending request in `store` and emits `approval_granted`; throws as
 * `ApprovalStore.grantApproval` does (and then emits nothing).
 */
export async function grantApprovalRequest(
  store: ApprovalStore,
  id: string,
  events: EventSink = NULL_EVENT_SINK,
): Promise<ApprovalRecord> {
  const record = await store.grantApproval(id);
  emitEvent(events, { type: "approval_granted", ...approvalFields(record), ...decidedByOf(record) });
  return record;
}

/** The longest denial reason {@link denyApprovalRequest} records; a longer one is cut there. */
export const DENIAL_REASON_MAX_CHARS = 500;

/**
 * Denies a pending request in `store` and emits `approval_denied`, with the operator's `reason` when
 * one is given (trimmed, cut at {@link DENIAL_REASON_MAX_CHARS}): the audit trail is where it is
 * kept. Throws as `ApprovalStore.denyApproval` does (and then emits nothing).
 */
export async function denyApprovalRequest(
  store: ApprovalStore,
  id: string,
  events: EventSink = NULL_EVENT_SINK,
  options: { reason?: string } = {},
): Promise<ApprovalRecord> {
  const record = await store.denyApproval(id);
  const reason = options.reason?.trim().slice(0, DENIAL_REASON_MAX_CHARS);
  emitEvent(events, {
    type: "approval_denied",
    ...approvalFields(record),
    ...decidedByOf(record),
    ...(reason ? { reason } : {}),
  });
  return record;
}

/**
 * Voids each of `records` that is still pending or granted, emitting `approval_voided` for each one
 * voided; returns those. For callers that select the stale requests themselves.
 */
export async function voidApprovalRequests(
  store: ApprovalStore,
  records: readonly ApprovalRecord[],
  events: EventSink,
  reason: string,
): Promise<ApprovalRecord[]> {
  const voided: ApprovalRecord[] = [];
  for (const record of records) {
    // Consumed or decided meanwhile: that outcome stands, there is nothing left to void.
    const changed = await store.voidApproval(record.id, reason);
    if (!changed) continue;
    voided.push(changed);
    emitEvent(events, {
      type: "approval_voided",
      reason,
      ...approvalFields(changed),
      ...decidedByOf(changed),
    });
  }
  return voided;
}

/** The fields every approval event carries, taken from a record. */
export function approvalFields(record: ApprovalRecord): {
  runId: string;
  requestId: string;
  toolName: string;
  actionDigest: string;
} {
  return {
    runId: record.runId,
    requestId: record.id,
    toolName: record.toolName,
    actionDigest: record.actionDigest,
  };
}

// Who decided, where the store records it: the event says so too.
function decidedByOf(record: ApprovalRecord): { decidedBy?: string } {
  return record.decidedBy === undefined ? {} : { decidedBy: record.decidedBy };
}
