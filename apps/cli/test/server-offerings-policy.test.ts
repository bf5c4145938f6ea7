import { type ServerToolAction, serverToolName } from "@agent/mcp-client";
import { definePolicy, resolvePolicyDecision } from "@agent/policy";
import { expect, it } from "vitest";
import { samplingToolName } from "../src/runtime/configured-model.js";
import { formToolName } from "../src/runtime/form-policy.js";

// The policy spells the prefixes of these names itself (it imports neither package): this keeps them in step.
const ACTIONS: readonly ServerToolAction[] = ["list_resources", "read_resource", "get_prompt"];

it("a rule denying a server's tools governs every name the CLI gives what that server offers", () => {
  const policy = definePolicy({
    defaults: { external: "allow" },
    rules: [{ tool: "mcp__docs__*", decision: "deny" }],
  });
  const names = [
    ...ACTIONS.map((action) => serverToolName("docs", action)),
    samplingToolName("docs"),
    formToolName("docs"),
  ];
  for (const name of names)
    expect(resolvePolicyDecision(policy, { name, effect: "external" }).decision, name).toBe("deny");
});
