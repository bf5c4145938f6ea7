import { createPolicyGate, definePolicy, InMemoryApprovalStore, type Sandbox } from "@agent/policy";
import { createMemoryEventSink, executeToolCall, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { countingTool, FIXED_NOW, recordingSandbox, sequentialIds } from "./helpers.js";

function setUp(sandbox?: Sandbox) {
  const notes = countingTool("write_notes", "write");
  const registry = new ToolRegistry();
  registry.register(notes.tool);
  const events = createMemoryEventSink();
  const gate = createPolicyGate({
    policy: definePolicy({ network: "deny", sandbox: "optional" }),
    approvals: new InMemoryApprovalStore({ now: FIXED_NOW, createId: sequentialIds() }),
    events,
    now: FIXED_NOW,
    ...(sandbox ? { sandbox } : {}),
  });
  // Each call in a run of its own: a pending request of one never answers another.
  const call = (index: number) =>
    executeToolCall(
      { name: "write_notes", input: { q: "x" }, callId: `call_${index}` },
      { registry, gate, runId: `run_${index}`, cwd: "/work", events },
    );
  return { gate, call, notes };
}

describe("a policy gate that takes up new decisions", () => {
  it("decides by the reloaded rules from the next call on", async () => {
    const { gate, call, notes } = setUp();
    expect((await call(1)).type).toBe("waiting");
    gate.reload(definePolicy({ rules: [{ tool: "write_notes", decision: "allow" }] }));
    expect(await call(2)).toMatchObject({ type: "observation", ok: true });
    expect(notes.executions).toHaveLength(1);
    gate.reload(definePolicy({ rules: [{ tool: "write_notes", decision: "deny" }] }));
    expect(await call(3)).toMatchObject({ type: "observation", ok: false, error: "policy_denied" });
  });

  it("keeps the network policy and sandbox requirement it was created with", async () => {
    const sandbox = recordingSandbox(false);
    const { gate, call } = setUp(sandbox);
    const reloaded = definePolicy({
      rules: [{ tool: "write_notes", decision: "allow" }],
      network: "allow",
      sandbox: "required",
    });
    gate.reload(reloaded);
    // Not refused for want of isolation, and run under the network policy the gate started with.
    expect(await call(1)).toMatchObject({ type: "observation", ok: true });
    expect(sandbox.runs).toEqual([{ network: "deny" }]);
    expect(gate.policy()).toMatchObject({ rules: reloaded.rules, network: "deny", sandbox: "optional" });
    expect(Object.isFrozen(gate.policy())).toBe(true);
  });
});
