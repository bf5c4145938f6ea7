import {
  ACTION_DIGEST_VERSION,
  type ApprovalStore,
  createApprovalVoidingSink,
  createPolicyGate,
  DIGEST_VERSION_CHANGED_REASON,
  definePolicy,
  denyApprovalRequest,
  grantApprovalRequest,
  InMemoryApprovalStore,
  voidApprovalsOfChangedTool,
  voidApprovalsOfRemovedTool,
} from "@agent/policy";
import { sampleApprovalRequest } from "@agent/policy/testing";
import { createMemoryEventSink, executeToolCall, type RegisteredTool, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { DENIAL_REASON_MAX_CHARS } from "../src/approval-decisions.js";
import { countingTool, FIXED_NOW, sequentialIds } from "./helpers.js";

const NAME = "mcp__docs__search";

function world(
  store: ApprovalStore = new InMemoryApprovalStore({ now: FIXED_NOW, createId: sequentialIds() }),
) {
  const events = createMemoryEventSink();
  const gate = createPolicyGate({
    policy: definePolicy(),
    approvals: store,
    events,
    now: FIXED_NOW,
  });
  const call = async (tool: RegisteredTool) => {
    const registry = new ToolRegistry();
    registry.register(tool);
    return executeToolCall(
      { name: NAME, input: { q: "x" }, callId: "call_1" },
      { registry, gate, runId: "run_1", cwd: "/work", events },
    );
  };
  return { store, events, call };
}

describe("voiding approvals when a tool's definition changes", () => {
  it("voids a granted request of a redefined tool, and restoring the old definition revives nothing", async () => {
    const original = countingTool(NAME, "external", { description: "Search the docs." });
    const changed = countingTool(NAME, "external", { description: "Search the docs. Also delete them." });
    const { store, events, call } = world();

    const held = await call(original.tool);
    expect(held.type).toBe("waiting");
    if (held.type !== "waiting") return;
    await grantApprovalRequest(store, held.requestId, events);

    // Discovery sees the new definition: the grant for the old one is voided, with an event.
    const voided = await voidApprovalsOfChangedTool(store, changed.tool, events);
    expect(voided.map((record) => [record.id, record.status])).toEqual([[held.requestId, "voided"]]);
    expect(events.ofType("approval_voided")).toEqual([
      expect.objectContaining({
        requestId: held.requestId,
        toolName: NAME,
        reason: expect.stringContaining("changed"),
      }),
    ]);

    // The old definition comes back: the same digest as the grant, which stays void.
    const again = await call(original.tool);
    expect(again).toMatchObject({ type: "waiting" });
    expect(again.type === "waiting" && again.requestId).not.toBe(held.requestId);
    expect(original.executions).toEqual([]);
    expect((await store.getApproval(held.requestId))?.status).toBe("voided");
  });

  it("voids pending requests too, leaves other tools and the current definition alone", async () => {
    const tool = countingTool(NAME, "external");
    const other = countingTool("mcp__docs__other", "external");
    const { store, call } = world();
    const first = await call(tool.tool);
    if (first.type !== "waiting") throw new Error("expected waiting");
    // The definition it was asked for is current: nothing to void.
    expect(await voidApprovalsOfChangedTool(store, tool.tool)).toEqual([]);
    expect(await voidApprovalsOfChangedTool(store, { name: other.tool.name, fingerprint: "x" })).toEqual([]);
    const voided = await voidApprovalsOfChangedTool(store, { name: NAME, fingerprint: "f".repeat(64) });
    expect(voided.map((record) => record.status)).toEqual(["voided"]);
    await expect(grantApprovalRequest(store, first.requestId)).rejects.toMatchObject({
      code: "approval_not_pending",
    });
  });

  it("voids every open request of a removed tool", async () => {
    const tool = countingTool(NAME, "external");
    const { store, events, call } = world();
    const first = await call(tool.tool);
    if (first.type !== "waiting") throw new Error("expected waiting");
    expect((await voidApprovalsOfRemovedTool(store, NAME, events)).map((record) => record.id)).toEqual([
      first.requestId,
    ]);
    expect(events.ofType("approval_voided")[0]?.reason).toBe("the tool was removed");
  });
});

describe("voiding approvals per call, when a definition changed within one process", () => {
  it("a grant for definition A never admits a call once the gate has seen B, even if A comes back", async () => {
    const a = countingTool(NAME, "external", { description: "Search the docs." });
    const b = countingTool(NAME, "external", { description: "Search the docs. Also delete them." });
    const { store, events, call } = world();

    const held = await call(a.tool);
    if (held.type !== "waiting") throw new Error("expected waiting");
    await grantApprovalRequest(store, held.requestId, events);

    // The server changed the tool (a list_changed mid-run): the call under B is held anew...
    const underB = await call(b.tool);
    expect(underB).toMatchObject({ type: "waiting" });
    expect(b.executions).toEqual([]);
    // ...and the grant given for A is voided on the spot, not at the next connect.
    expect(await store.getApproval(held.requestId)).toMatchObject({ status: "voided" });
    expect(events.ofType("approval_voided")).toEqual([
      expect.objectContaining({ requestId: held.requestId, reason: expect.stringContaining("changed") }),
    ]);

    // The server switches back to A: the voided grant admits nothing.
    expect(await call(a.tool)).toMatchObject({ type: "waiting" });
    expect(a.executions).toEqual([]);
    expect(b.executions).toEqual([]);
  });
});

describe("voiding approvals as discovery changes the registry", () => {
  it("voids a grant for A when the registry changes to B, so A coming back without a call between admits nothing", async () => {
    const a = countingTool(NAME, "external", { description: "Search the docs." });
    const b = countingTool(NAME, "external", { description: "Search the docs. Also delete them." });
    const { store, events, call } = world();
    const held = await call(a.tool);
    if (held.type !== "waiting") throw new Error("expected waiting");
    await grantApprovalRequest(store, held.requestId, events);

    const registry = new ToolRegistry();
    registry.register(b.tool);
    const errors: unknown[] = [];
    const sink = createApprovalVoidingSink({
      approvals: store,
      registry,
      events,
      onError: (e) => errors.push(e),
    });
    sink.emit({ type: "mcp_tools_changed", at: "", server: "docs", added: [], removed: [], changed: [NAME] });
    await sink.settled();
    expect(errors).toEqual([]);
    expect((await store.getApproval(held.requestId))?.status).toBe("voided");

    // Back to A before any call under B: the old grant stays void.
    expect(await call(a.tool)).toMatchObject({ type: "waiting" });
    expect(a.executions).toEqual([]);
  });
});

describe("who decided", () => {
  it("approval events carry the decidedBy a store records, and nothing when it records none", async () => {
    const store = new InMemoryApprovalStore({ now: FIXED_NOW });
    const events = createMemoryEventSink();
    await store.saveApprovalRequest(sampleApprovalRequest("apr_1"));
    await store.saveApprovalRequest(sampleApprovalRequest("apr_2", { runId: "run_2" }));
    // A store that records its deciding user, as the CLI's and the PostgreSQL ones do.
    const recording = Object.assign(Object.create(store) as InMemoryApprovalStore, {
      grantApproval: async (id: string) => ({ ...(await store.grantApproval(id)), decidedBy: "carol" }),
    });
    await grantApprovalRequest(recording, "apr_1", events);
    await denyApprovalRequest(store, "apr_2", events);
    expect(events.ofType("approval_granted")).toEqual([expect.objectContaining({ decidedBy: "carol" })]);
    expect(events.ofType("approval_denied")[0]).not.toHaveProperty("decidedBy");
  });
});

describe("a denial's reason", () => {
  it("is kept on approval_denied, trimmed and cut at DENIAL_REASON_MAX_CHARS; a blank one is left out", async () => {
    const store = new InMemoryApprovalStore({ now: FIXED_NOW });
    const events = createMemoryEventSink();
    for (const id of ["apr_1", "apr_2", "apr_3"]) {
      await store.saveApprovalRequest(sampleApprovalRequest(id, { runId: `run_${id}` }));
    }
    await denyApprovalRequest(store, "apr_1", events, { reason: "  not on a Friday  " });
    await denyApprovalRequest(store, "apr_2", events, { reason: "x".repeat(DENIAL_REASON_MAX_CHARS + 10) });
    await denyApprovalRequest(store, "apr_3", events, { reason: "   " });
    const [first, second, third] = events.ofType("approval_denied");
    expect(first?.reason).toBe("not on a Friday");
    expect(second?.reason).toBe("x".repeat(DENIAL_REASON_MAX_CHARS));
    expect(third).not.toHaveProperty("reason");
    expect((await store.getApproval("apr_1"))?.status).toBe("denied");
  });
});

describe("voiding approvals of an older digest version", () => {
  // Asked and granted before the way actions are digested last changed.
  const olderRequest = (id: string) =>
    sampleApprovalRequest(id, { toolName: NAME, digestVersion: ACTION_DIGEST_VERSION - 1 });

  it("the gate voids them with digest_version_changed before its first look-up, and asks anew", async () => {
    const search = countingTool(NAME, "external");
    const { store, events, call } = world();
    await store.saveApprovalRequest(olderRequest("apr_old_granted"));
    await store.grantApproval("apr_old_granted");
    await store.saveApprovalRequest({ ...olderRequest("apr_old_pending"), runId: "run_2" });

    const outcome = await call(search.tool);
    expect(outcome).toMatchObject({ type: "waiting", requestId: "apr_1" });
    expect(search.executions).toEqual([]);
    for (const id of ["apr_old_granted", "apr_old_pending"]) {
      expect(await store.getApproval(id)).toMatchObject({
        status: "voided",
        voidReason: DIGEST_VERSION_CHANGED_REASON,
      });
    }
    expect(events.ofType("approval_voided")).toEqual([
      expect.objectContaining({ requestId: "apr_old_pending", reason: "digest_version_changed" }),
      expect.objectContaining({ requestId: "apr_old_granted", reason: "digest_version_changed" }),
    ]);
    // The new request records the current version; granting it runs the call once.
    expect((await store.getApproval("apr_1"))?.digestVersion).toBe(ACTION_DIGEST_VERSION);
    await grantApprovalRequest(store, "apr_1", events);
    expect(await call(search.tool)).toMatchObject({ type: "observation", ok: true });
    expect(search.executions).toHaveLength(1);
  });

  it("a sweep that fails fails the call closed, and the next call sweeps again", async () => {
    const search = countingTool(NAME, "external");
    const inner = new (class extends InMemoryApprovalStore {
      failures = 1;
      override async listApprovals(filter?: Parameters<ApprovalStore["listApprovals"]>[0]) {
        if (this.failures-- > 0) throw new Error("store offline");
        return super.listApprovals(filter);
      }
    })({ now: FIXED_NOW });
    await inner.saveApprovalRequest(olderRequest("apr_old"));
    const { events, call } = world(inner);

    const refused = await call(search.tool);
    expect(refused).toMatchObject({ type: "observation", ok: false, error: "policy_denied" });
    expect(search.executions).toEqual([]);
    expect((await inner.getApproval("apr_old"))?.status).toBe("pending");

    expect(await call(search.tool)).toMatchObject({ type: "waiting" });
    expect((await inner.getApproval("apr_old"))?.status).toBe("voided");
    expect(events.ofType("approval_voided")).toHaveLength(1);
  });
});
