import { type EventSink, emitEvent, NULL_EVENT_SINK } from "@agent/tools";
import { ACTION_DIGEST_VERSION } from "./action-digest.js";
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

/** The reason {@link voidApprovalsOfChangedTool} records, unless the caller gives its own. */
export const TOOL_CHANGED_REASON = "the tool's definition changed (fingerprint differs)";

/**
 * Voids every pending or granted request for `tool.name` whose tool fingerprint is not
 * `tool.fingerprint` (the definition changed since it was asked), emitting `approval_voided` for
 * each; returns the voided records. Restoring the old definition later revives none of them. Call it
 * whenever a tool's current definition becomes known (discovery, rediscovery, reconnect).
 */
export async function voidApprovalsOfChangedTool(
  store: ApprovalStore,
  tool: { name: string; fingerprint: string },
  events: EventSink = NULL_EVENT_SINK,
  reason: string = TOOL_CHANGED_REASON,
): Promise<ApprovalRecord[]> {
  const open = [
    ...(await store.listApprovals({ status: "pending" })),
    ...(await store.listApprovals({ status: "granted" })),
  ].filter((record) => record.toolName === tool.name && record.toolFingerprint !== tool.fingerprint);
  return voidApprovalRequests(store, open, events, reason);
}

/**
 * Voids every pending or granted request for a tool that no longer exists (a server removed it),
 * emitting `approval_voided` for each, so it cannot come back with its old approvals.
 */
export async function voidApprovalsOfRemovedTool(
  store: ApprovalStore,
  toolName: string,
  events: EventSink = NULL_EVENT_SINK,
): Promise<ApprovalRecord[]> {
  const open = [
    ...(await store.listApprovals({ status: "pending" })),
    ...(await store.listApprovals({ status: "granted" })),
  ].filter((record) => record.toolName === toolName);
  return voidApprovalRequests(store, open, events, TOOL_REMOVED_REASON);
}

/** The reason {@link voidApprovalsOfRemovedTool} records. */
export const TOOL_REMOVED_REASON = "the tool was removed";

/** The reason {@link voidApprovalsOfOlderDigestVersion} records. */
export const DIGEST_VERSION_CHANGED_REASON = "digest_version_changed";

/**
 * Voids every pending or granted request digested under a version older than `version` (how actions
 * are digested changed since it was asked, so no call can match it again), emitting `approval_voided`
 * with the reason `digest_version_changed` for each; returns the voided records. Requests of a newer
 * version (another machine on a shared store runs a newer harness) are left alone. The policy gate
 * calls it once, before its first approval look-up.
 */
export async function voidApprovalsOfOlderDigestVersion(
  store: ApprovalStore,
  events: EventSink = NULL_EVENT_SINK,
  version: number = ACTION_DIGEST_VERSION,
): Promise<ApprovalRecord[]> {
  const open = [
    ...(await store.listApprovals({ status: "pending" })),
    ...(await store.listApprovals({ status: "granted" })),
  ].filter((record) => record.digestVersion < version);
  return voidApprovalRequests(store, open, events, DIGEST_VERSION_CHANGED_REASON);
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
