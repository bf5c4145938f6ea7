import { type McpServerConnection, serverOfToolName } from "@agent/mcp-client";
import {
  type ApprovalRecord,
  type ApprovalStore,
  TOOL_CHANGED_REASON,
  TOOL_REMOVED_REASON,
  voidApprovalRequests,
} from "@agent/policy";
import type { EventSink, ToolRegistry } from "@agent/tools";

/**
 * Voids the pending and granted approvals whose tool is no longer the one they were asked for: a
 * registered tool whose fingerprint differs (its definition changed), or an MCP tool (or a built-in
 * resource or prompt tool) its connected, ready server no longer offers (removed). Tools of servers not connected in this process are left
 * alone: nothing is known about them. Each voided request is audited as `approval_voided`, and
 * restoring the old definition later revives none of them.
 */
export async function voidStaleApprovals(options: {
  approvals: ApprovalStore;
  registry: ToolRegistry;
  connections: readonly McpServerConnection[];
  events: EventSink;
}): Promise<ApprovalRecord[]> {
  const { approvals, registry, connections, events } = options;
  const open = [
    ...(await approvals.listApprovals({ status: "pending" })),
    ...(await approvals.listApprovals({ status: "granted" })),
  ];
  const changed: ApprovalRecord[] = [];
  const removed: ApprovalRecord[] = [];
  for (const record of open) {
    const tool = registry.get(record.toolName);
    if (tool) {
      if (tool.fingerprint !== record.toolFingerprint) changed.push(record);
      continue;
    }
    const server = serverOfToolName(record.toolName);
    const connection = connections.find((candidate) => candidate.name === server);
    if (connection?.state === "ready") removed.push(record);
  }
  return [
    ...(await voidApprovalRequests(approvals, changed, events, TOOL_CHANGED_REASON)),
    ...(await voidApprovalRequests(approvals, removed, events, TOOL_REMOVED_REASON)),
  ];
}
