import { definePolicy, type PolicyConfig, resolvePolicyDecision } from "@agent/policy";
import { describe, expect, it } from "vitest";

// What a server offers besides its tools, as the MCP client and the CLI name it.
const OFFERINGS = [
  "mcp_server__docs__read_resource",
  "mcp_server__docs__list_resources",
  "mcp_server__docs__get_prompt",
  "mcp_sampling__docs",
  "mcp_elicitation__docs",
];

function decisionOf(config: PolicyConfig, name: string): string {
  return resolvePolicyDecision(definePolicy(config), { name, effect: "external" }).decision;
}

describe("a rule naming a whole server governs everything the server offers", () => {
  it.each(OFFERINGS)("a deny of mcp__docs__* denies %s, even against a rule allowing it", (name) => {
    const rules = [
      { tool: "mcp__docs__*", decision: "deny" as const },
      { tool: name, decision: "allow" as const },
    ];
    expect(decisionOf({ defaults: { external: "allow" }, rules }, name)).toBe("deny");
  });

  it.each(["mcp__*", "mcp__do*", "*__*"])("so does any pattern covering all its tools: %s", (pattern) => {
    for (const name of OFFERINGS)
      expect(
        decisionOf({ defaults: { external: "allow" }, rules: [{ tool: pattern, decision: "deny" }] }, name),
      ).toBe("deny");
  });

  it("an ask of the server holds them where a rule naming them would allow", () => {
    const rules = [
      { tool: "mcp__docs__*", decision: "ask" as const },
      { tool: "mcp_server__docs__*", decision: "allow" as const },
    ];
    expect(decisionOf({ rules }, "mcp_server__docs__read_resource")).toBe("ask");
  });

  it("an allow of the server's tools does not allow reading its resources or sampling", () => {
    for (const name of OFFERINGS)
      expect(decisionOf({ rules: [{ tool: "mcp__docs__*", decision: "allow" }] }, name)).toBe("ask");
  });

  it("a rule naming some of its tools, or another server, does not reach them", () => {
    const defaults = { external: "allow" as const };
    for (const tool of ["mcp__docs__search", "mcp__*__delete_*", "mcp__doc__*", "mcp__docs-2__*"]) {
      for (const name of OFFERINGS)
        expect(decisionOf({ defaults, rules: [{ tool, decision: "deny" }] }, name), `${tool} ${name}`).toBe(
          "allow",
        );
    }
  });

  it("names the server-wide rule as the reason of the deny", () => {
    const match = resolvePolicyDecision(
      definePolicy({ rules: [{ tool: "mcp__docs__*", decision: "deny", reason: "docs is off" }] }),
      { name: "mcp_sampling__docs", effect: "external" },
    );
    expect(match).toMatchObject({ decision: "deny", rule: { tool: "mcp__docs__*" } });
  });
});
