/**
 * What a reload of the policy gate cannot do: change the rules of a call in flight, relax the
 * sandbox or the network it was created with, or take up decisions that are not a valid policy's.
 */
import {
  type ApprovalStore,
  createPolicyGate,
  definePolicy,
  InMemoryApprovalStore,
  type PolicyDecisions,
} from "@agent/policy";
import { createMemoryEventSink, executeToolCall, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { countingTool, FIXED_NOW, recordingSandbox, sequentialIds } from "./helpers.js";

/** An approval store whose next grant look-up waits until `release()`: a call held mid-decision. */
function pausingStore() {
  const store = new InMemoryApprovalStore({ now: FIXED_NOW, createId: sequentialIds() });
  let paused = false;
  let release: () => void = () => {};
  let reached: () => void = () => {};
  const reachedConsume = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const approvals = new Proxy(store, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== "consumeApprovalGrant" || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        if (paused) {
          paused = false;
          reached();
          await new Promise<void>((resolve) => {
            release = resolve;
          });
        }
        return value.apply(target, args);
      };
    },
  }) as ApprovalStore;
  return {
    store,
    approvals,
    pauseNextConsume: () => {
      paused = true;
    },
    reachedConsume,
    release: () => release(),
  };
}

function setUp() {
  const notes = countingTool("write_notes", "write");
  const registry = new ToolRegistry();
  registry.register(notes.tool);
  const events = createMemoryEventSink();
  const paused = pausingStore();
  const gate = createPolicyGate({
    policy: definePolicy({ rules: [{ tool: "write_notes", decision: "ask" }] }),
    approvals: paused.approvals,
    events,
    now: FIXED_NOW,
  });
  const call = () =>
    executeToolCall(
      { name: "write_notes", input: { q: "x" }, callId: "call_1" },
      { registry, gate, runId: "run_1", cwd: "/work", events },
    );
  return { gate, call, notes, ...paused };
}

describe("what a policy gate's reload cannot do", () => {
  it("a call in flight finishes under the rules it started under, even when a reload denies the tool meanwhile", async () => {
    const { gate, call, notes, store, pauseNextConsume, reachedConsume, release } = setUp();
    const held = await call();
    if (held.type !== "waiting") throw new Error("expected the call to be held");
    await store.grantApproval(held.requestId);

    pauseNextConsume();
    const inFlight = call();
    await reachedConsume;
    // The operator tightens the policy while the call is between "ask" and its grant.
    gate.reload(definePolicy({ rules: [{ tool: "write_notes", decision: "deny" }] }));
    release();
    // Documented as "from the next call on": the in-flight call is admitted by its grant and runs.
    expect(await inFlight).toMatchObject({ type: "observation", ok: true });
    expect(notes.executions).toHaveLength(1);
    // And the next call is denied: no call was decided half by the old rules and half by the new.
    expect(await call()).toMatchObject({ type: "observation", ok: false, error: "policy_denied" });
  });

  it("cannot relax the sandbox requirement or the network policy it was created with", async () => {
    const notes = countingTool("write_notes", "write");
    const registry = new ToolRegistry();
    registry.register(notes.tool);
    const events = createMemoryEventSink();
    const sandbox = recordingSandbox(false);
    const gate = createPolicyGate({
      policy: definePolicy({ network: "deny", sandbox: "required" }),
      approvals: new InMemoryApprovalStore({ now: FIXED_NOW, createId: sequentialIds() }),
      events,
      now: FIXED_NOW,
      sandbox,
    });
    gate.reload(
      definePolicy({
        rules: [{ tool: "write_notes", decision: "allow" }],
        network: "allow",
        sandbox: "optional",
      }),
    );
    const outcome = await executeToolCall(
      { name: "write_notes", input: { q: "x" }, callId: "call_1" },
      { registry, gate, runId: "run_1", cwd: "/work", events },
    );
    expect(outcome).toMatchObject({ type: "observation", ok: false, error: "policy_denied" });
    expect(JSON.stringify(outcome)).toContain("sandbox_required");
    expect(sandbox.runs).toEqual([]);
    expect(gate.policy()).toMatchObject({ network: "deny", sandbox: "required" });
  });

  // Unchecked, a misspelt decision ("Deny") reads as ask: a denied tool would be held for a grant.
  it("refuses malformed decisions and keeps deciding by the ones it had", async () => {
    const { gate, call, notes } = setUp();
    gate.reload(definePolicy({ rules: [{ tool: "write_notes", decision: "deny" }] }));
    const { defaults } = definePolicy();
    const misspelt = { defaults, rules: [{ tool: "write_notes", decision: "Deny" }], flows: "guard" };
    expect(() => gate.reload(misspelt as unknown as PolicyDecisions)).toThrow(
      expect.objectContaining({ name: "PolicyError", code: "invalid_policy" }),
    );
    expect(await call()).toMatchObject({ type: "observation", ok: false, error: "policy_denied" });
    expect(notes.executions).toEqual([]);
  });
});
