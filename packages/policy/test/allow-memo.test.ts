import { createPolicyGate, definePolicy, InMemoryApprovalStore, type Policy } from "@agent/policy";
import { executeToolCall, type RegisteredTool, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { countingTool } from "./helpers.js";

// The gate remembers "allowed outright" per tool; these check it never outlives what it was computed for.
async function call(policy: Policy, tool: RegisteredTool, name = tool.name) {
  const registry = new ToolRegistry();
  registry.register(tool);
  const gate = createPolicyGate({ policy, approvals: new InMemoryApprovalStore() });
  const env = { registry, gate, runId: "run_1", cwd: "/work" };
  const run = () => executeToolCall({ name, input: { q: "x" } }, env);
  return { run, gate };
}

describe("the policy gate's remembered allow decisions", () => {
  it("applies a hand-built (unfrozen) policy changed in place to the very next call", async () => {
    const { tool, executions } = countingTool("search", "read");
    const policy: Policy = {
      defaults: { read: "allow", write: "ask", external: "ask" },
      rules: [],
      network: "deny",
      sandbox: "optional",
    } as unknown as Policy;
    const { run } = await call(policy, tool);
    expect(await run()).toMatchObject({ ok: true });
    (policy.rules as unknown as unknown[]).push({ tool: "search", decision: "deny" });
    expect(await run()).toMatchObject({ ok: false, error: "policy_denied" });
    expect(executions).toHaveLength(1);
  });

  it("decides again for a tool whose name or effect changed in place", async () => {
    const policy = definePolicy({ rules: [{ tool: "search", decision: "allow" }] });
    const { tool, executions } = countingTool("search", "write");
    const registry = new ToolRegistry();
    registry.register(tool);
    const gate = createPolicyGate({ policy, approvals: new InMemoryApprovalStore() });
    const env = { registry, gate, runId: "run_1", cwd: "/work" };
    const admitted = await gate.admit({
      tool,
      input: { q: "x" },
      runId: "r",
      callId: "c1",
      cwd: "/w",
      signal: new AbortController().signal,
    });
    expect(admitted.type).toBe("allow");
    // Renamed in place (a mutable tool object): the rule for "search" no longer matches; write asks.
    (tool as { name: string }).name = "search_all";
    const held = await gate.admit({
      tool,
      input: { q: "x" },
      runId: "r",
      callId: "c2",
      cwd: "/w",
      signal: new AbortController().signal,
    });
    expect(held.type).toBe("waiting");
    expect(await executeToolCall({ name: "search", input: { q: "x" } }, env)).toMatchObject({
      type: "waiting",
    });
    expect(executions).toHaveLength(0);
  });
});
