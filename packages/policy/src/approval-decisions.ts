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
  emitEvent(events, { type: "approval_granted", ...approvalFields(record) });
  return record;
}

/**
 * Denies a pending request in `store` and emits `approval_denied`; throws as
 * `ApprovalStore.denyApproval` does (and then emits nothing).
 */
export async function denyApprovalRequest(
  store: ApprovalStore,
  id: string,
  events: EventSink = NULL_EVENT_SINK,
): Promise<ApprovalRecord> {
  const record = await store.denyApproval(id);
  emitEvent(events, { type: "approval_denied", ...approvalFields(record) });
  return record;
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
