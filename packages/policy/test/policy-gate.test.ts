import {
  createPolicyGate,
  definePolicy,
  denyApprovalRequest,
  grantApprovalRequest,
  InMemoryApprovalStore,
  type Policy,
  PolicyError,
  type Sandbox,
} from "@agent/policy";
import {
  createMemoryEventSink,
  type ExecutionEnvironment,
  executeToolCall,
  type MemoryEventSink,
  type RegisteredTool,
  ToolRegistry,
} from "@agent/tools";
import { describe, expect, it } from "vitest";
import { countingTool, FIXED_NOW, recordingSandbox, sequentialIds } from "./helpers.js";

interface Harness {
  env: ExecutionEnvironment;
  store: InMemoryApprovalStore;
  events: MemoryEventSink;
  registry: ToolRegistry;
}

function harness(
  policy: Policy,
  tools: RegisteredTool[],
  options: { sandbox?: Sandbox; runId?: string; network?: "deny" | "allow" } = {},
): Harness {
  const store = new InMemoryApprovalStore({ now: FIXED_NOW, createId: sequentialIds() });
  const events = createMemoryEventSink();
  const registry = new ToolRegistry();
  registry.registerAll(tools);
  const gate = createPolicyGate({
    policy,
    approvals: store,
    events,
    now: FIXED_NOW,
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.network ? { network: options.network } : {}),
  });
  const env: ExecutionEnvironment = { registry, gate, runId: options.runId ?? "run_1", cwd: "/work", events };
  return { env, store, events, registry };
}

describe("createPolicyGate with executeToolCall", () => {
  it("runs an allowed call via the policy, in the sandbox, under the network policy", async () => {
    const notes = countingTool("read_notes", "read");
    const sandbox = recordingSandbox(false);
    const { env, events } = harness(definePolicy({ network: "allow" }), [notes.tool], { sandbox });
    const outcome = await executeToolCall({ name: "read_notes", input: { q: "x" }, callId: "c1" }, env);
    expect(outcome).toMatchObject({ type: "observation", ok: true, output: { results: ["x"] } });
    expect(notes.executions).toEqual([{ q: "x" }]);
    expect(sandbox.runs).toEqual([{ network: "allow" }]);
    expect(events.ofType("tool_call_decided")).toMatchObject([
      { decision: "allow", via: "policy", isolation: "test-passthrough" },
    ]);
  });

  it("reports the built-in no-isolation runner honestly as isolation none", async () => {
    const notes = countingTool("read_notes", "read");
    const { env, events } = harness(definePolicy(), [notes.tool]);
    await executeToolCall({ name: "read_notes", input: { q: "x" } }, env);
    expect(events.ofType("tool_call_decided")[0]?.isolation).toBe("none");
  });

  it("never executes a denied call", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const policy = definePolicy({
      rules: [{ tool: "mcp__docs__*", decision: "deny", reason: "no docs access" }],
    });
    const { env, store } = harness(policy, [search.tool]);
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({
      type: "observation",
      ok: false,
      error: "policy_denied",
      reason: 'the policy rule "mcp__docs__*" denies mcp__docs__search: no docs access',
    });
    expect(search.executions).toEqual([]);
    expect(await store.listApprovals()).toEqual([]);
  });

  it("mints an approval id only when it stores a request: allowed, denied, repeated and granted calls mint none", async () => {
    const minted: string[] = [];
    const mint = sequentialIds();
    const createId = (): string => {
      const id = mint();
      minted.push(id);
      return id;
    };
    const store = new InMemoryApprovalStore({ createId });
    const search = countingTool("mcp__docs__search", "external");
    const blocked = countingTool("mcp__docs__delete", "external");
    const notes = countingTool("read_notes", "read");
    const registry = new ToolRegistry();
    registry.registerAll([search.tool, blocked.tool, notes.tool]);
    const policy = definePolicy({ rules: [{ tool: "mcp__docs__delete", decision: "deny" }] });
    const gate = createPolicyGate({ policy, approvals: store });
    const env: ExecutionEnvironment = { registry, gate, runId: "run_1", cwd: "/work" };
    await executeToolCall({ name: "read_notes", input: { q: "x" } }, env);
    await executeToolCall({ name: "mcp__docs__delete", input: { q: "x" } }, env);
    expect(minted).toEqual([]);
    const held = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(minted).toEqual(["apr_1"]);
    expect(held).toMatchObject({ type: "waiting", requestId: "apr_1" });
    await grantApprovalRequest(store, "apr_1");
    const admitted = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(admitted).toMatchObject({ type: "observation", ok: true });
    expect(minted).toEqual(["apr_1"]);
  });

  it("holds an ask call as waiting and never executes it; repeating it waits on the same request", async () => {
    const search = countingTool("mcp__docs__search", "external", { annotations: { readOnlyHint: true } });
    const { env, store, events } = harness(definePolicy(), [search.tool]);
    const first = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" }, callId: "c1" }, env);
    expect(first).toEqual({
      type: "waiting",
      callId: "c1",
      toolName: "mcp__docs__search",
      requestId: "apr_1",
      reason: "approval_required",
    });
    const again = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" }, callId: "c2" }, env);
    expect(again).toMatchObject({ type: "waiting", requestId: "apr_1" });
    expect(search.executions).toEqual([]);
    expect(await store.listApprovals()).toMatchObject([
      {
        id: "apr_1",
        status: "pending",
        callId: "c1",
        summary: 'mcp__docs__search (external) {"q":"x"} — server hints (unverified): readOnlyHint',
      },
    ]);
    expect(events.ofType("approval_requested")).toHaveLength(1);
  });

  it("executes a granted call exactly once; the next identical call is held again", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const { env, store, events } = harness(definePolicy(), [search.tool]);
    const call = { name: "mcp__docs__search", input: { q: "x" } };
    await executeToolCall(call, env);
    await grantApprovalRequest(store, "apr_1", events);

    const granted = await executeToolCall({ ...call, input: { q: "x", limit: undefined } }, env);
    expect(granted).toMatchObject({ type: "observation", ok: true });
    expect(search.executions).toHaveLength(1);
    expect(events.ofType("tool_call_decided").at(-1)).toMatchObject({ decision: "allow", via: "approval" });

    const held = await executeToolCall(call, env);
    expect(held.type).toBe("waiting");
    const heldId = held.type === "waiting" ? held.requestId : "";
    expect(heldId).not.toBe("apr_1");
    expect((await store.getApproval(heldId))?.status).toBe("pending");
    expect(search.executions).toHaveLength(1);
    expect((await store.getApproval("apr_1"))?.status).toBe("consumed");
  });

  it("never lets a grant cover a different input, run or tool definition", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const { env, store, events } = harness(definePolicy(), [search.tool]);
    await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    await grantApprovalRequest(store, "apr_1", events);

    expect(await executeToolCall({ name: "mcp__docs__search", input: { q: "y" } }, env)).toMatchObject({
      type: "waiting",
      requestId: "apr_2",
    });
    const otherRun = { ...env, runId: "run_2" };
    expect(await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, otherRun)).toMatchObject({
      type: "waiting",
      requestId: "apr_3",
    });
    // The server redefined the tool (say, after list_changed): same name, new fingerprint.
    const redefined = countingTool("mcp__docs__search", "external", {
      description: "Search, now with writes.",
    });
    const registry = new ToolRegistry();
    registry.register(redefined.tool);
    expect(
      await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, { ...env, registry }),
    ).toMatchObject({ type: "waiting", requestId: "apr_4" });
    expect(search.executions).toEqual([]);
    expect(redefined.executions).toEqual([]);
    // Never used; and voided by the call under the new definition, so it cannot come back with the old one.
    expect((await store.getApproval("apr_1"))?.status).toBe("voided");
  });

  it("turns a denied request into policy_denied naming the request, without executing", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const { env, store, events } = harness(definePolicy(), [search.tool]);
    const call = { name: "mcp__docs__search", input: { q: "x" } };
    await executeToolCall(call, env);
    await denyApprovalRequest(store, "apr_1", events);
    const outcome = await executeToolCall(call, env);
    expect(outcome).toMatchObject({ type: "observation", ok: false, error: "policy_denied" });
    expect(outcome.type === "observation" && !outcome.ok && outcome.reason).toContain(
      "an operator denied approval apr_1",
    );
    expect(search.executions).toEqual([]);
    expect(await store.listApprovals()).toHaveLength(1);
  });

  it("refuses every call when isolation is required but missing, without asking or executing", async () => {
    const notes = countingTool("read_notes", "read");
    const search = countingTool("mcp__docs__search", "external");
    const policy = definePolicy({ sandbox: "required" });
    const { env, store } = harness(policy, [notes.tool, search.tool]);
    for (const name of ["read_notes", "mcp__docs__search"]) {
      const outcome = await executeToolCall({ name, input: { q: "x" } }, env);
      expect(outcome).toMatchObject({ type: "observation", ok: false, error: "policy_denied" });
      const reason = outcome.type === "observation" && !outcome.ok ? outcome.reason : "";
      expect(reason).toMatch(/^sandbox_required: /);
      expect(reason).toContain('("none") does not isolate');
      expect(reason).toContain("never attempted");
    }
    expect(notes.executions).toEqual([]);
    expect(search.executions).toEqual([]);
    expect(await store.listApprovals()).toEqual([]);
  });

  it("keeps a grant unused when isolation is required but missing", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const loose = harness(definePolicy(), [search.tool]);
    await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, loose.env);
    await grantApprovalRequest(loose.store, "apr_1");
    const strictGate = createPolicyGate({
      policy: definePolicy({ sandbox: "required" }),
      approvals: loose.store,
    });
    const outcome = await executeToolCall(
      { name: "mcp__docs__search", input: { q: "x" } },
      { ...loose.env, gate: strictGate },
    );
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied" });
    expect((await loose.store.getApproval("apr_1"))?.status).toBe("granted");
    expect(search.executions).toEqual([]);
  });

  it("runs calls when isolation is required and the sandbox isolates", async () => {
    const notes = countingTool("read_notes", "read");
    const sandbox = recordingSandbox(true);
    const { env, events } = harness(definePolicy({ sandbox: "required" }), [notes.tool], { sandbox });
    const outcome = await executeToolCall({ name: "read_notes", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: true });
    expect(sandbox.runs).toEqual([{ network: "deny" }]);
    expect(events.ofType("tool_call_decided")[0]?.isolation).toBe("test-jail");
  });

  it("binds approvals to the gate's network policy", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const denyNet = harness(definePolicy(), [search.tool], { network: "deny" });
    await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, denyNet.env);
    await grantApprovalRequest(denyNet.store, "apr_1");
    const allowGate = createPolicyGate({
      policy: definePolicy(),
      approvals: denyNet.store,
      network: "allow",
    });
    const outcome = await executeToolCall(
      { name: "mcp__docs__search", input: { q: "x" } },
      { ...denyNet.env, gate: allowGate },
    );
    expect(outcome).toMatchObject({ type: "waiting" });
    expect(search.executions).toEqual([]);
  });

  it("emits the whole story in order, with ids and digests that line up", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const { env, store, events } = harness(definePolicy(), [search.tool]);
    const call = { name: "mcp__docs__search", input: { q: "x" } };
    await executeToolCall({ ...call, callId: "c1" }, env);
    await grantApprovalRequest(store, "apr_1", events);
    await executeToolCall({ ...call, callId: "c2" }, env);

    expect(events.events.map((event) => event.type)).toEqual([
      "approval_requested",
      "tool_call_decided",
      "tool_call_finished",
      "approval_granted",
      "approval_consumed",
      "tool_call_decided",
      "tool_call_finished",
    ]);
    const digest = (await store.getApproval("apr_1"))?.actionDigest;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(events.ofType("approval_requested")).toEqual([
      {
        type: "approval_requested",
        at: "2030-01-02T03:04:05.000Z",
        runId: "run_1",
        requestId: "apr_1",
        toolName: "mcp__docs__search",
        actionDigest: digest,
        effect: "external",
      },
    ]);
    expect(events.ofType("approval_granted")).toMatchObject([{ requestId: "apr_1", actionDigest: digest }]);
    // The input (which may hold credentials) never reaches the audit stream; the digest binds it.
    expect(JSON.stringify(events.events)).not.toContain('"q":"x"');
    expect(events.ofType("approval_consumed")).toEqual([
      {
        type: "approval_consumed",
        at: "2030-01-02T03:04:05.000Z",
        runId: "run_1",
        requestId: "apr_1",
        toolName: "mcp__docs__search",
        actionDigest: digest,
      },
    ]);
    expect(events.ofType("tool_call_decided")).toMatchObject([
      { callId: "c1", decision: "ask", requestId: "apr_1" },
      { callId: "c2", decision: "allow", via: "approval", isolation: "none" },
    ]);
    expect(events.ofType("tool_call_finished")).toMatchObject([
      { callId: "c1", ok: false, code: "waiting" },
      { callId: "c2", ok: true },
    ]);
  });

  it("emits approval_denied through the helper, and nothing when the change is refused", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const { env, store, events } = harness(definePolicy(), [search.tool]);
    await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    await denyApprovalRequest(store, "apr_1", events);
    await expect(grantApprovalRequest(store, "apr_1", events)).rejects.toBeInstanceOf(PolicyError);
    expect(events.ofType("approval_denied")).toMatchObject([{ requestId: "apr_1" }]);
    expect(events.ofType("approval_granted")).toEqual([]);
  });

  it("lets exactly one of many concurrent identical calls use a grant; the rest are held", async () => {
    const search = countingTool("mcp__docs__search", "external");
    const { env, store, events } = harness(definePolicy(), [search.tool]);
    const call = { name: "mcp__docs__search", input: { q: "x" } };
    await executeToolCall(call, env);
    await grantApprovalRequest(store, "apr_1", events);
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => executeToolCall(call, env)));
    expect(outcomes.filter((outcome) => outcome.type === "observation" && outcome.ok)).toHaveLength(1);
    const waiting = outcomes.filter((outcome) => outcome.type === "waiting");
    expect(waiting).toHaveLength(19);
    // All held calls wait on one new request, not nineteen.
    expect(new Set(waiting.map((outcome) => outcome.type === "waiting" && outcome.requestId)).size).toBe(1);
    expect(search.executions).toHaveLength(1);
    expect(events.ofType("approval_consumed")).toMatchObject([{ requestId: "apr_1" }]);
    expect(events.ofType("approval_requested")).toHaveLength(2);
  });
});

describe("admit, the async port (issue 27)", () => {
  const request = (tool: RegisteredTool) => ({
    tool,
    input: { q: "x" },
    runId: "run_1",
    callId: "call_1",
    cwd: "/work",
    signal: new AbortController().signal,
  });
  const gateFor = (decision: "allow" | "deny" | "ask") =>
    createPolicyGate({
      policy: definePolicy({ rules: [{ tool: "search", decision }] }),
      approvals: new InMemoryApprovalStore({ now: FIXED_NOW, createId: sequentialIds() }),
      now: FIXED_NOW,
    });

  it("answers with a promise of the verdict for calls the policy decides alone and for held ones", async () => {
    const { tool } = countingTool("search", "read");
    const answers = (["allow", "deny", "ask"] as const).map((decision) =>
      gateFor(decision).admit(request(tool)),
    );
    for (const answer of answers) expect(answer).toBeInstanceOf(Promise);
    expect((await Promise.all(answers)).map((verdict) => verdict.type)).toEqual(["allow", "deny", "waiting"]);
  });
});
