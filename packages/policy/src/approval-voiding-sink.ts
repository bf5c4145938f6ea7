import type { EventSink, RegisteredTool } from "@agent/tools";
import type { ApprovalStore } from "./approval-store.js";
import { voidApprovalsOfChangedTool, voidApprovalsOfRemovedTool } from "./stale-approvals.js";

/** Options of {@link createApprovalVoidingSink}. */
export interface ApprovalVoidingSinkOptions {
  approvals: ApprovalStore;
  /** Where the current definitions are read (the registry discovery just changed). */
  registry: { get(name: string): RegisteredTool | undefined };
  /** Receives each `approval_voided`. */
  events: EventSink;
  /** A void that failed (the store is down): reported here; the gate's per-call sweep still applies. */
  onError: (error: unknown) => void;
}

/**
 * An event sink to hand to MCP connections beside the audit trail: on each `mcp_tools_changed` (a
 * `list_changed` rediscovery, a reconnect), it voids the pending and granted approvals of every tool
 * that changed (asked for another fingerprint than the registry's now) or was removed, one change
 * after another, so a grant for an old definition is gone even if no call shows the new one before
 * the old one comes back. `settled()` resolves once every change seen so far is applied.
 */
export function createApprovalVoidingSink(
  options: ApprovalVoidingSinkOptions,
): EventSink & { settled(): Promise<void> } {
  const { approvals, registry, events, onError } = options;
  let queue: Promise<void> = Promise.resolve();
  const apply = async (changed: readonly string[], removed: readonly string[]): Promise<void> => {
    for (const name of changed) {
      const tool = registry.get(name);
      // Changed again since (removed): the removal below, or a later event, voids it.
      if (tool) await voidApprovalsOfChangedTool(approvals, tool, events);
    }
    for (const name of removed) {
      if (!registry.get(name)) await voidApprovalsOfRemovedTool(approvals, name, events);
    }
  };
  return {
    emit(event) {
      if (event.type !== "mcp_tools_changed") return;
      if (event.changed.length === 0 && event.removed.length === 0) return;
      const { changed, removed } = event;
      queue = queue.then(() => apply(changed, removed)).catch(onError);
    },
    settled: () => queue,
  };
}
