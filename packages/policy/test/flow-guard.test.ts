import {
  computeActionDigest,
  createFlowTracker,
  createPolicyGate,
  definePolicy,
  grantApprovalRequest,
  InMemoryApprovalStore,
  InMemoryTaintedFileStore,
  type Policy,
  PolicyError,
  resolvePolicyDecision,
  type Sandbox,
} from "@agent/policy";
import {
  createMemoryEventSink,
  type ExecutionEnvironment,
  executeToolCall,
  type FlowSource,
  ToolRegistry,
} from "@agent/tools";
import { describe, expect, it } from "vitest";
import { countingTool, FIXED_NOW, sequentialIds } from "./helpers.js";

const WEB: FlowSource = { kind: "tool", name: "mcp__web__fetch", server: "web", turn: 1 };
const MAIL: FlowSource = { kind: "tool", name: "mcp__mail__read", server: "mail", turn: 2 };

function guarded(policy: Policy, sandbox?: Sandbox) {
  const store = new InMemoryApprovalStore({ now: FIXED_NOW, createId: sequentialIds() });
  const events = createMemoryEventSink();
  const send = countingTool("mcp__mail__send", "external");
  const read = countingTool("mcp__mail__read", "external");
  const write = countingTool("write_note", "write");
  const registry = new ToolRegistry();
  registry.registerAll([send.tool, read.tool, write.tool]);
  const gate = createPolicyGate({
    policy,
    approvals: store,
    events,
    now: FIXED_NOW,
    ...(sandbox ? { sandbox } : {}),
  });
  const env: ExecutionEnvironment = { registry, gate, runId: "run_1", cwd: "/work", events };
  const call = (name: string, taint?: readonly FlowSource[], q = "hello") =>
    executeToolCall({ name, input: { q }, callId: `call_${name}`, ...(taint ? { taint } : {}) }, env);
  return { store, events, send, read, write, call };
}

const ALLOW_ALL = definePolicy({ rules: [{ tool: "*", decision: "allow" }] });

describe("the flow guard at the gate", () => {
  it("holds an allowed sink of a tainted run, naming the sources, and runs it clean", async () => {
    const { send, call, store, events } = guarded(ALLOW_ALL);
    expect(await call("mcp__mail__send")).toMatchObject({ ok: true });
    const held = await call("mcp__mail__send", [WEB]);
    expect(held).toMatchObject({ type: "waiting", heldBy: "tainted_flow", taint: [WEB] });
    expect(send.executions).toHaveLength(1);
    const [request] = await store.listApprovals({ status: "pending" });
    expect(request).toMatchObject({ heldBy: "tainted_flow", taint: [WEB], toolName: "mcp__mail__send" });
    expect(events.events).toContainEqual(
      expect.objectContaining({
        type: "tool_call_decided",
        decision: "ask",
        reason: "tainted_flow",
        taint: [WEB],
      }),
    );
  });

  it("keeps a deny a deny, and lets a rule's tainted decision speak for tainted runs", async () => {
    const policy = definePolicy({
      rules: [
        { tool: "mcp__mail__read", decision: "allow", tainted: "allow" },
        { tool: "mcp__mail__send", decision: "deny" },
      ],
    });
    const { read, send, call } = guarded(policy);
    expect(await call("mcp__mail__read", [WEB])).toMatchObject({ ok: true });
    expect(read.executions).toHaveLength(1);
    expect(await call("mcp__mail__send", [WEB])).toMatchObject({ ok: false, error: "policy_denied" });
    expect(send.executions).toHaveLength(0);
  });

  it("a specific rule's tainted allow is not outweighed by a server-wide allow that says nothing of taint", async () => {
    const policy = definePolicy({
      rules: [
        { tool: "mcp__mail__*", decision: "allow" },
        { tool: "mcp__mail__read", decision: "allow", tainted: "allow" },
      ],
    });
    const { read, send, call } = guarded(policy);
    expect(await call("mcp__mail__read", [WEB])).toMatchObject({ ok: true });
    expect(read.executions).toHaveLength(1);
    expect(await call("mcp__mail__send", [WEB])).toMatchObject({ type: "waiting", heldBy: "tainted_flow" });
    expect(send.executions).toHaveLength(0);
    // An explicit ask of another matching rule still holds it.
    const asking = definePolicy({
      rules: [
        { tool: "mcp__mail__*", decision: "allow", tainted: "ask" },
        { tool: "mcp__mail__read", decision: "allow", tainted: "allow" },
      ],
    });
    expect((await guarded(asking).call("mcp__mail__read", [WEB])).type).toBe("waiting");
  });

  it("a rule may deny in tainted runs only, saying so", async () => {
    const policy = definePolicy({ rules: [{ tool: "mcp__mail__send", decision: "allow", tainted: "deny" }] });
    const { send, call } = guarded(policy);
    const denied = await call("mcp__mail__send", [WEB]);
    expect(denied).toMatchObject({ ok: false, error: "policy_denied" });
    expect(JSON.stringify(denied)).toContain("in a run that took in untrusted content");
    expect(send.executions).toHaveLength(0);
  });

  it("refuses a rule whose tainted decision is weaker than its decision", () => {
    expect(() =>
      definePolicy({ rules: [{ tool: "mcp__mail__send", decision: "ask", tainted: "allow" }] }),
    ).toThrow(PolicyError);
  });

  it("does not hold an in-process local write of a tainted run", async () => {
    const { write, call } = guarded(ALLOW_ALL);
    expect(await call("write_note", [WEB])).toMatchObject({ ok: true });
    expect(write.executions).toHaveLength(1);
  });

  it("holds a sandboxed command whose network is open, not one whose network is denied", async () => {
    const open: Sandbox = { name: "jail", isolates: true, network: "allow", run: (execute) => execute() };
    const closed: Sandbox = { name: "jail", isolates: true, network: "deny", run: (execute) => execute() };
    expect((await guarded(ALLOW_ALL, open).call("write_note", [WEB])).type).toBe("waiting");
    expect((await guarded(ALLOW_ALL, closed).call("write_note", [WEB])).type).toBe("observation");
  });

  it("binds the taint into the digest: approving the call clean does not approve it tainted", async () => {
    const policy = definePolicy({ rules: [{ tool: "mcp__mail__send", decision: "ask" }] });
    const { send, call, store } = guarded(policy);
    const clean = await call("mcp__mail__send");
    expect(clean.type).toBe("waiting");
    await grantApprovalRequest(store, clean.type === "waiting" ? clean.requestId : "");
    const tainted = await call("mcp__mail__send", [WEB]);
    expect(tainted.type).toBe("waiting");
    expect(send.executions).toHaveLength(0);
    // A rule's own ask in a tainted run is not the guard's hold, but it is bound to the taint all the same.
    expect(tainted).not.toHaveProperty("heldBy");
    const requests = await store.listApprovals();
    expect(new Set(requests.map((request) => request.actionDigest)).size).toBe(2);
    expect(await call("mcp__mail__send")).toMatchObject({ ok: true });
    expect(send.executions).toHaveLength(1);
  });

  it("digests the same set of sources alike whatever their order, and a clean call as it always was", () => {
    const base = {
      toolName: "t",
      toolFingerprint: "f",
      input: { a: 1 },
      cwd: "/w",
      network: "deny" as const,
    };
    expect(computeActionDigest({ ...base, taint: ["a", "b"] })).toBe(
      computeActionDigest({ ...base, taint: ["b", "a", "a"] }),
    );
    expect(computeActionDigest({ ...base, taint: [] })).toBe(computeActionDigest(base));
    expect(computeActionDigest({ ...base, taint: ["a"] })).not.toBe(computeActionDigest(base));
  });

  it("with flows off, neither holds nor binds", async () => {
    const policy = definePolicy({ flows: "off", rules: [{ tool: "*", decision: "allow" }] });
    const { send, call } = guarded(policy);
    expect(await call("mcp__mail__send", [WEB, MAIL])).toMatchObject({ ok: true });
    expect(send.executions).toHaveLength(1);
    expect(
      resolvePolicyDecision(policy, { name: "mcp__mail__send", effect: "external" }, { sink: true }),
    ).toEqual({
      decision: "allow",
      rule: { tool: "*", decision: "allow" },
    });
  });
});

describe("createFlowTracker", () => {
  const tool = (name: string, effect: "read" | "external") => countingTool(name, effect).tool;

  it("labels untrusted tools' results, and files tainted runs wrote for trusted readers", async () => {
    const files = new InMemoryTaintedFileStore();
    await files.markTainted({
      path: "/w/plan.md",
      sha256: "0".repeat(64),
      runId: "run_0",
      sources: [WEB],
      markedAt: "x",
    });
    const tracker = createFlowTracker({
      taintedFiles: files,
      readsFiles: (call) => (call.toolName === "read_file" ? [String((call.input as { q: string }).q)] : []),
    });
    const sources = await tracker.sourcesOf(
      [
        { toolName: "mcp__web__fetch", tool: tool("mcp__web__fetch", "external"), input: {} },
        { toolName: "read_file", tool: tool("read_file", "read"), input: { q: "/w/plan.md" } },
        { toolName: "read_file", tool: tool("read_file", "read"), input: { q: "/w/clean.md" } },
        { toolName: "nothing", tool: undefined, input: {} },
      ],
      3,
    );
    expect(sources).toEqual([
      [{ kind: "tool", name: "mcp__web__fetch", turn: 3 }],
      [{ kind: "file", name: "/w/plan.md", turn: 3 }],
      [],
      [],
    ]);
  });

  it("hands out each arrival once, at the turn it is taken", () => {
    const tracker = createFlowTracker();
    tracker.noteArrival({ kind: "sampling", name: "web", server: "web" });
    expect(tracker.takeArrivals(4)).toEqual([{ kind: "sampling", name: "web", server: "web", turn: 4 }]);
    expect(tracker.takeArrivals(5)).toEqual([]);
  });
});
