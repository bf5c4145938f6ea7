import { createPolicyGate, definePolicy, InMemoryApprovalStore, type Policy } from "@agent/policy";
import { executeToolCall, type RegisteredTool, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { countingTool } from "./helpers.js";

// The gate remembers "allowed outright" per tool; these check it never outlives what it was computed for.
function governed(policy: Policy, tool: RegisteredTool) {
  const registry = new ToolRegistry();
  registry.register(tool);
  const env = {
    registry,
    gate: createPolicyGate({ policy, approvals: new InMemoryApprovalStore() }),
    runId: "run_1",
    cwd: "/work",
  };
  // Under the name it was registered with, whatever the tool object says now.
  const registered = tool.name;
  return () => executeToolCall({ name: registered, input: { q: "x" } }, env);
}

/** A policy frozen on the outside (itself, its defaults, its rule list) around a rule given as is. */
function frozenOutside(rule: object, defaults: Record<string, string>): Policy {
  return Object.freeze({
    defaults: Object.freeze(defaults),
    rules: Object.freeze([rule]),
    network: "deny",
    sandbox: "optional",
  }) as unknown as Policy;
}

describe("the policy gate's remembered allow decisions", () => {
  it("applies a hand-built (unfrozen) policy changed in place to the very next call", async () => {
    const { tool, executions } = countingTool("search", "read");
    const policy = {
      defaults: { read: "allow", write: "ask", external: "ask" },
      rules: [] as { tool: string; decision: "deny" }[],
      network: "deny",
      sandbox: "optional",
    } as unknown as Policy & { rules: { tool: string; decision: "deny" }[] };
    const call = governed(policy, tool);
    expect(await call()).toMatchObject({ ok: true });
    policy.rules.push({ tool: "search", decision: "deny" });
    expect(await call()).toMatchObject({ ok: false, error: "policy_denied" });
    expect(executions).toHaveLength(1);
  });

  it("reads a policy frozen only on the outside anew: a rule changed in place applies at once", async () => {
    const { tool, executions } = countingTool("search", "write");
    const rule = { tool: "search", decision: "allow" as "allow" | "deny" };
    const policy = frozenOutside(rule, { read: "allow", write: "ask", external: "ask" });
    const call = governed(policy, tool);
    expect(await call()).toMatchObject({ ok: true });
    rule.decision = "deny";
    expect(await call()).toMatchObject({ ok: false, error: "policy_denied" });
    expect(executions).toHaveLength(1);
  });

  it("reads a frozen policy with a getter anew", async () => {
    const { tool, executions } = countingTool("search", "read");
    let decision: "allow" | "deny" = "allow";
    const rule = Object.freeze({
      tool: "search",
      get decision() {
        return decision;
      },
    });
    const policy = frozenOutside(rule, { read: "ask", write: "ask", external: "ask" });
    const call = governed(policy, tool);
    expect(await call()).toMatchObject({ ok: true });
    decision = "deny";
    expect(await call()).toMatchObject({ ok: false, error: "policy_denied" });
    expect(executions).toHaveLength(1);
  });

  it("decides again for a tool whose name changed in place", async () => {
    const policy = definePolicy({ rules: [{ tool: "search", decision: "allow" }] });
    const { tool, executions } = countingTool("search", "write");
    const call = governed(policy, tool);
    expect(await call()).toMatchObject({ ok: true });
    // Renamed in place (a mutable tool object): the rule for "search" no longer matches; write asks.
    (tool as { name: string }).name = "search_all";
    expect(await call()).toMatchObject({ type: "waiting" });
    expect(executions).toHaveLength(1);
  });

  it("decides again for a tool whose effect changed in place", async () => {
    const policy = definePolicy({ defaults: { read: "allow", write: "deny" } });
    const { tool, executions } = countingTool("search", "read");
    const call = governed(policy, tool);
    expect(await call()).toMatchObject({ ok: true });
    (tool as { effect: string }).effect = "write";
    expect(await call()).toMatchObject({ ok: false, error: "policy_denied" });
    expect(executions).toHaveLength(1);
  });
});
