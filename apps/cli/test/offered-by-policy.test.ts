import { createPolicyGate, definePolicy, InMemoryApprovalStore } from "@agent/policy";
import { defineTool, type RegisteredTool, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createOfferedByPolicy } from "../src/runtime/offered-by-policy.js";

function toolsOf(effect: "read" | "external"): RegisteredTool[] {
  const registry = new ToolRegistry();
  for (const name of ["notes", "send"]) {
    registry.register(
      defineTool({ name, description: `${name} it`, effect, schema: z.object({}), execute: () => name }),
    );
  }
  return registry.list();
}

const offeredNames = (isOffered: (tool: RegisteredTool) => boolean, tools: RegisteredTool[]) =>
  tools.filter(isOffered).map((tool) => tool.name);

describe("createOfferedByPolicy", () => {
  it("answers by the gate's policy of the moment: a reload denies and un-denies at once", () => {
    const gate = createPolicyGate({
      policy: definePolicy({ rules: [{ tool: "send", decision: "deny" }] }),
      approvals: new InMemoryApprovalStore(),
    });
    const isOffered = createOfferedByPolicy(() => gate.policy());
    const tools = toolsOf("read");
    expect(offeredNames(isOffered, tools)).toEqual(["notes"]);
    expect(offeredNames(isOffered, tools)).toEqual(["notes"]);

    gate.reload({
      defaults: gate.policy().defaults,
      rules: [{ tool: "notes", decision: "deny" }],
      flows: "guard",
    });
    expect(offeredNames(isOffered, tools)).toEqual(["send"]);
  });

  it("answers a rediscovered tool (a new object) by its new definition under the same policy", () => {
    const policy = definePolicy({ defaults: { external: "deny" } });
    const isOffered = createOfferedByPolicy(() => policy);
    expect(offeredNames(isOffered, toolsOf("read"))).toEqual(["notes", "send"]);
    expect(offeredNames(isOffered, toolsOf("external"))).toEqual([]);
  });
});
