import {
  ACTION_DIGEST_VERSION,
  DIGEST_VERSION_CHANGED_REASON,
  grantApprovalRequest,
  InMemoryApprovalStore,
  voidStaleApprovals,
} from "@agent/policy";
import { sampleApprovalRequest } from "@agent/policy/testing";
import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { staleReasonOf, TOOL_CHANGED_REASON, TOOL_REMOVED_REASON } from "../src/stale-approvals.js";
import { FIXED_NOW } from "./helpers.js";

const CURRENT = "f".repeat(64);
const OLD = "0".repeat(64);

/** The registry after discovery: `mcp__docs__search` at its current definition, nothing else. */
const registry = {
  get: (name: string) => (name === "mcp__docs__search" ? { fingerprint: CURRENT } : undefined),
};
// The docs server is connected and listed; the wiki server is not known in this process.
const sourceListed = (toolName: string) => toolName.startsWith("mcp__docs__");

async function seededStore() {
  const store = new InMemoryApprovalStore({ now: FIXED_NOW });
  const save = (id: string, overrides: Parameters<typeof sampleApprovalRequest>[1]) =>
    store.saveApprovalRequest(sampleApprovalRequest(id, { runId: `run_${id}`, ...overrides }));
  await save("apr_current", {});
  await save("apr_changed", { toolFingerprint: OLD });
  await save("apr_removed", { toolName: "mcp__docs__delete" });
  await save("apr_unknown_source", { toolName: "mcp__wiki__edit" });
  await save("apr_old_digest", { digestVersion: ACTION_DIGEST_VERSION - 1 });
  await save("apr_granted_changed", { toolFingerprint: OLD });
  await grantApprovalRequest(store, "apr_granted_changed");
  await save("apr_denied_changed", { toolFingerprint: OLD });
  await store.denyApproval("apr_denied_changed");
  return store;
}

describe("voidStaleApprovals: the one sweep of stale approvals", () => {
  it("voids what changed, was removed or was digested under an older version, with that reason, and audits each", async () => {
    const store = await seededStore();
    const events = createMemoryEventSink();
    const voided = await voidStaleApprovals({ approvals: store, registry, sourceListed, events });
    expect(voided.map((record) => [record.id, record.voidReason])).toEqual([
      ["apr_old_digest", DIGEST_VERSION_CHANGED_REASON],
      ["apr_changed", TOOL_CHANGED_REASON],
      ["apr_granted_changed", TOOL_CHANGED_REASON],
      ["apr_removed", TOOL_REMOVED_REASON],
    ]);
    expect(events.ofType("approval_voided").map((event) => [event.requestId, event.reason])).toEqual(
      voided.map((record) => [record.id, record.voidReason]),
    );
    // Still valid, of a source nobody listed here, or decided already: untouched.
    const statuses = Object.fromEntries(
      (await store.listApprovals()).map((record) => [record.id, record.status]),
    );
    expect(statuses).toMatchObject({
      apr_current: "pending",
      apr_unknown_source: "pending",
      apr_denied_changed: "denied",
    });
    // A second sweep finds nothing left.
    expect(await voidStaleApprovals({ approvals: store, registry, sourceListed, events })).toEqual([]);
  });

  it("counts nothing as removed when no source says its tools are all listed", async () => {
    const store = await seededStore();
    const voided = await voidStaleApprovals({ approvals: store, registry });
    expect(voided.map((record) => record.id)).not.toContain("apr_removed");
    expect((await store.getApproval("apr_removed"))?.status).toBe("pending");
  });
});

describe("staleReasonOf", () => {
  it("puts an older digest version first: such a request can match no call at all", async () => {
    const { record } = await new InMemoryApprovalStore({ now: FIXED_NOW }).saveApprovalRequest(
      sampleApprovalRequest("apr_1", { toolFingerprint: OLD, digestVersion: ACTION_DIGEST_VERSION - 1 }),
    );
    expect(staleReasonOf(record, { registry })).toBe(DIGEST_VERSION_CHANGED_REASON);
    expect(staleReasonOf(record, { registry, digestVersion: ACTION_DIGEST_VERSION - 1 })).toBe(
      TOOL_CHANGED_REASON,
    );
    expect(
      staleReasonOf({ ...record, toolFingerprint: CURRENT }, { registry, digestVersion: 0 }),
    ).toBeUndefined();
  });
});
