import { writeFileSync } from "node:fs";
import { createPolicyGate, InMemoryApprovalStore } from "@agent/policy";
import { createMemoryEventSink, defineTool, executeToolCall, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../src/config/index.js";
import { reloadPolicyFromFile } from "../src/runtime/policy-reload.js";
import { useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

const NAME = "mcp__docs__search";
const rules = (decision: string) => ({ policy: { rules: [{ tool: NAME, decision }] } });

/** A gate over the file's policy, whose one rule decides `initial` for the docs search tool. */
function setUp(initial = "ask") {
  const file = writeConfig(rules(initial));
  const config = loadConfig(file, {});
  const events = createMemoryEventSink();
  const gate = createPolicyGate({
    policy: config.policy,
    approvals: new InMemoryApprovalStore(),
    events,
    // Unsandboxed: this test is about decisions, not placement.
    sandboxFor: () => null,
  });
  const reloadable = { policy: () => gate.policy(), reload: () => reloadPolicyFromFile(gate, config, {}) };
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: NAME,
      description: "Search the docs.",
      schema: z.object({ q: z.string() }),
      effect: "external",
      execute: ({ q }) => ({ results: [q] }),
    }),
  );
  // Each call in a run of its own: a grant or pending request of one never answers another.
  const call = (index: number) =>
    executeToolCall(
      { name: NAME, input: { q: "x" }, callId: `call_${index}` },
      { registry, gate, runId: `run_${index}`, cwd: "/work", events },
    );
  return { file, config, reloadable, call };
}

describe("reloading the policy from the configuration file", () => {
  it("decides by the file's new rules from the next call on, keeping the network policy it started with", async () => {
    const { file, config, reloadable, call } = setUp();
    expect((await call(1)).type).toBe("waiting");
    writeFileSync(
      file,
      JSON.stringify({ ...rules("allow"), policy: { ...rules("allow").policy, network: "allow" } }),
    );
    reloadable.reload();
    expect((await call(2)).type).toBe("observation");
    expect(reloadable.policy().rules).toEqual([{ tool: NAME, decision: "allow" }]);
    expect(reloadable.policy().network).toEqual(config.policy.network);
  });

  it("keeps its decisions when the file no longer loads, and says why", async () => {
    // From "allow", not "ask": an external tool's default is "ask", so only a rule that differs
    // from the defaults tells kept decisions from a fall-back to the defaults.
    const { file, reloadable, call } = setUp("allow");
    expect((await call(1)).type).toBe("observation");
    writeFileSync(file, "{ not json");
    expect(() => reloadable.reload()).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^config_/) }),
    );
    expect((await call(2)).type).toBe("observation");
    expect(reloadable.policy().rules).toEqual([{ tool: NAME, decision: "allow" }]);
  });
});
