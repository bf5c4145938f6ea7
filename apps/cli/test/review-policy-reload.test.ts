/**
 * Review of `reloadPolicyFromFile`: a reload that fails keeps the decisions the gate had. The test of
 * the same name in policy-reload.test.ts starts from a rule ("ask") that equals the effect default
 * of an external tool, so a reload that fell back to the defaults on failure would pass it too.
 */
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

describe("reloading the policy from a file that no longer loads", () => {
  it("keeps deciding by the rules it had, not by the effect defaults", async () => {
    const file = writeConfig({ policy: { rules: [{ tool: NAME, decision: "allow" }] } });
    const config = loadConfig(file, {});
    const events = createMemoryEventSink();
    const gate = createPolicyGate({
      policy: config.policy,
      approvals: new InMemoryApprovalStore(),
      events,
      sandboxFor: () => null,
    });
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
    const call = (index: number) =>
      executeToolCall(
        { name: NAME, input: { q: "x" }, callId: `call_${index}` },
        { registry, gate, runId: `run_${index}`, cwd: "/work", events },
      );
    expect(await call(1)).toMatchObject({ type: "observation", ok: true });
    writeFileSync(file, "{ not json");
    expect(() => reloadPolicyFromFile(gate, config, {})).toThrow(
      expect.objectContaining({ code: expect.stringMatching(/^config_/) }),
    );
    // Still allowed outright: an external tool's default would hold it ("ask").
    expect(await call(2)).toMatchObject({ type: "observation", ok: true });
    expect(gate.policy().rules).toEqual([{ tool: NAME, decision: "allow" }]);
  });
});
