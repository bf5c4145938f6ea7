import { serverOfToolName } from "@agent/mcp-client";
import { type ApprovalStore, voidApprovalRequests } from "@agent/policy";
import type { EventSink } from "@agent/tools";
import type { PinnedPackage } from "./package-install.js";

/** The reason recorded on the approvals a refresh voids: the code behind the server's tools changed. */
export const PACKAGE_CHANGED_REASON =
  "the server's package changed (refreshed to another version or integrity)";

/** Whether two pinnings differ in any package's version or integrity. */
export function isRepinned(before: readonly PinnedPackage[], after: readonly PinnedPackage[]): boolean {
  const key = (packages: readonly PinnedPackage[]) =>
    JSON.stringify(packages.map(({ name, version, integrity }) => [name, version, integrity]));
  return key(before) !== key(after);
}

/**
 * Voids the pending and granted approvals of `server`'s tools (its remote tools and its built-in
 * resource and prompt tools): they were asked for what its old package would do. A tool's
 * definition may stay the same across versions, so the fingerprint alone would keep them.
 */
export async function voidApprovalsOfRepinnedServer(
  approvals: ApprovalStore,
  server: string,
  events: EventSink,
): Promise<number> {
  const open = [
    ...(await approvals.listApprovals({ status: "pending" })),
    ...(await approvals.listApprovals({ status: "granted" })),
  ].filter((record) => serverOfToolName(record.toolName) === server);
  return (await voidApprovalRequests(approvals, open, events, PACKAGE_CHANGED_REASON)).length;
}
