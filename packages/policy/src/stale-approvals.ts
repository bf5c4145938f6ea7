// Every rule by which an approval goes stale (its tool changed or went away, or actions are digested
// differently now), in one place: the policy gate applies them per call, the voiding sink per
// registry change, and an application (the CLI's `agent call` and `agent run`) sweeps with
// voidStaleApprovals after connecting. A stale approval is voided, never revived.
import { type EventSink, NULL_EVENT_SINK } from "@agent/tools";
import { ACTION_DIGEST_VERSION } from "./action-digest.js";
import { voidApprovalRequests } from "./approval-decisions.js";
import type { ApprovalRecord, ApprovalStore } from "./approval-store.js";

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
  const open = (await openApprovals(store)).filter(
    (record) => record.toolName === tool.name && record.toolFingerprint !== tool.fingerprint,
  );
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
  const open = (await openApprovals(store)).filter((record) => record.toolName === toolName);
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
  const open = (await openApprovals(store)).filter((record) => record.digestVersion < version);
  return voidApprovalRequests(store, open, events, DIGEST_VERSION_CHANGED_REASON);
}

/** Options of {@link voidStaleApprovals}. */
export interface StaleApprovalSweep {
  approvals: ApprovalStore;
  /** The tools as they are now (the registry after discovery). */
  registry: { get(name: string): { fingerprint: string } | undefined };
  /**
   * Whether every current tool of `toolName`'s source is in `registry` (its server is connected and
   * listed its tools): only then is a tool missing from it removed rather than merely not known in
   * this process. Defaults to never, so nothing counts as removed.
   */
  sourceListed?: (toolName: string) => boolean;
  /** Receives each `approval_voided`. */
  events?: EventSink;
  /** The digest version calls are digested under now; defaults to {@link ACTION_DIGEST_VERSION}. */
  digestVersion?: number;
}

/**
 * Why `record` can no longer admit any call, against the tools known now: digested under an older
 * version ({@link DIGEST_VERSION_CHANGED_REASON}), asked for another definition of its tool
 * ({@link TOOL_CHANGED_REASON}), or its tool is gone from a source whose tools are all known
 * ({@link TOOL_REMOVED_REASON}); `undefined` if it may still.
 */
export function staleReasonOf(
  record: ApprovalRecord,
  sweep: Omit<StaleApprovalSweep, "approvals" | "events">,
): string | undefined {
  if (record.digestVersion < (sweep.digestVersion ?? ACTION_DIGEST_VERSION))
    return DIGEST_VERSION_CHANGED_REASON;
  const tool = sweep.registry.get(record.toolName);
  if (tool) return tool.fingerprint === record.toolFingerprint ? undefined : TOOL_CHANGED_REASON;
  return sweep.sourceListed?.(record.toolName) === true ? TOOL_REMOVED_REASON : undefined;
}

/**
 * Voids every pending and granted approval that {@link staleReasonOf} finds stale, with that reason,
 * emitting `approval_voided` for each; returns the voided records (those of an older digest version
 * first). Call it whenever the tools become known (after connecting), before looking for a grant.
 */
export async function voidStaleApprovals(sweep: StaleApprovalSweep): Promise<ApprovalRecord[]> {
  const { approvals, events = NULL_EVENT_SINK } = sweep;
  const stale = new Map<string, ApprovalRecord[]>([
    [DIGEST_VERSION_CHANGED_REASON, []],
    [TOOL_CHANGED_REASON, []],
    [TOOL_REMOVED_REASON, []],
  ]);
  for (const record of await openApprovals(approvals)) {
    const reason = staleReasonOf(record, sweep);
    if (reason !== undefined) stale.get(reason)?.push(record);
  }
  const voided: ApprovalRecord[] = [];
  for (const [reason, records] of stale)
    voided.push(...(await voidApprovalRequests(approvals, records, events, reason)));
  return voided;
}

/** The requests that can still admit a call: pending and granted ones. */
async function openApprovals(approvals: ApprovalStore): Promise<ApprovalRecord[]> {
  return [
    ...(await approvals.listApprovals({ status: "pending" })),
    ...(await approvals.listApprovals({ status: "granted" })),
  ];
}
