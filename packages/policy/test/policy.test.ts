import {
  ACTION_DIGEST_VERSION,
  authorize,
  DEFAULT_EFFECT_DECISIONS,
  definePolicy,
  isToolPattern,
  matchesToolPattern,
  type Policy,
  type PolicyContext,
  PolicyError,
  policySchema,
  resolvePolicyDecision,
} from "@agent/policy";
import type { RegisteredTool } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countingTool, FIXED_NOW } from "./helpers.js";

function contextFor(policy: Policy): PolicyContext {
  return {
    policy,
    runId: "run_1",
    callId: "call_1",
    cwd: "/work",
    now: FIXED_NOW,
  };
}

function decide(policy: Policy, tool: RegisteredTool, input: unknown = { q: "x" }): string {
  return authorize(tool, input, contextFor(policy)).type;
}

describe("definePolicy", () => {
  it("fills every default: reads allowed, writes and external calls asked, network denied, sandbox optional, flows guarded", () => {
    const policy = definePolicy();
    expect(policy).toEqual({
      defaults: { read: "allow", write: "ask", external: "ask" },
      rules: [],
      network: "deny",
      sandbox: "optional",
      flows: "guard",
    });
    expect(policy.defaults).toEqual(DEFAULT_EFFECT_DECISIONS);
  });

  it("keeps what the config sets and fills only the rest", () => {
    const policy = definePolicy({
      defaults: { external: "deny" },
      rules: [{ tool: "mcp__docs__*", decision: "allow" }],
      sandbox: "required",
    });
    expect(policy.defaults).toEqual({ read: "allow", write: "ask", external: "deny" });
    expect(policy.rules).toEqual([{ tool: "mcp__docs__*", decision: "allow" }]);
    expect(policy.sandbox).toBe("required");
    expect(policy.network).toBe("deny");
  });

  it("returns a frozen policy, so a validated policy cannot be loosened afterwards", () => {
    const policy = definePolicy({ rules: [{ tool: "*", decision: "deny" }] });
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.defaults)).toBe(true);
    expect(Object.isFrozen(policy.rules)).toBe(true);
    expect(Object.isFrozen(policy.rules[0])).toBe(true);
  });

  it.each([
    [
      "a pattern with a regex character",
      { rules: [{ tool: "mcp__docs__.*", decision: "allow" }] },
      "policy.rules[0].tool",
    ],
    ["an empty pattern", { rules: [{ tool: "", decision: "allow" }] }, "policy.rules[0].tool"],
    ["a pattern with a space", { rules: [{ tool: "read file", decision: "deny" }] }, "policy.rules[0].tool"],
    ["an unknown decision", { rules: [{ tool: "x", decision: "maybe" }] }, "policy.rules[0].decision"],
    ["an unknown default", { defaults: { read: "yes" } }, "policy.defaults.read"],
    ["an unknown effect", { defaults: { admin: "allow" } }, "policy.defaults"],
    ["an unknown top-level key", { rule: [] }, "policy"],
    ["a bad network policy", { network: "sometimes" }, "policy.network"],
    ["a bad sandbox requirement", { sandbox: "best-effort" }, "policy.sandbox"],
  ])("throws invalid_policy naming the field for %s", (_label, config, field) => {
    let thrown: unknown;
    try {
      definePolicy(config as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PolicyError);
    expect((thrown as PolicyError).code).toBe("invalid_policy");
    expect((thrown as PolicyError).message).toContain(`${field}`);
    expect((thrown as PolicyError).message).toContain("fix these fields");
  });

  it("throws for input that is not an object at all", () => {
    expect(() => definePolicy("allow everything" as never)).toThrow(PolicyError);
  });

  it("exports a zod schema a config file can embed under `policy`", () => {
    const config = z.object({ policy: policySchema.optional() });
    const parsed = config.parse({ policy: { rules: [{ tool: "mcp__docs__search", decision: "allow" }] } });
    expect(definePolicy(parsed.policy).rules).toHaveLength(1);
    expect(config.safeParse({ policy: { network: "maybe" } }).success).toBe(false);
    expect(z.toJSONSchema(policySchema)).toMatchObject({ type: "object", additionalProperties: false });
  });
});

describe("tool patterns", () => {
  it.each([
    ["mcp__docs__search", "mcp__docs__search", true],
    ["mcp__docs__search", "mcp__docs__searchx", false],
    ["mcp__docs__search", "xmcp__docs__search", false],
    ["mcp__docs__*", "mcp__docs__search", true],
    ["mcp__docs__*", "mcp__docs__", true],
    ["mcp__docs__*", "mcp__docsx__search", false],
    ["mcp__docs__*", "read_file", false],
    ["*", "anything", true],
    ["*__search", "mcp__docs__search", true],
    ["mcp__*__search", "mcp__docs__search", true],
    ["mcp__*__search", "mcp__docs__list", false],
    ["a*b*c", "abc", true],
    ["a*b*c", "aXbYc", true],
    ["a*b*c", "acb", false],
    ["ab*ba", "aba", false],
    ["a-b_c", "a-b_c", true],
  ])("%s matches %s: %s", (pattern, name, expected) => {
    expect(matchesToolPattern(pattern, name)).toBe(expected);
  });

  it("accepts only tool-name characters and *", () => {
    expect(isToolPattern("mcp__docs__*")).toBe(true);
    expect(isToolPattern("*")).toBe(true);
    for (const bad of ["", "a.b", "a?b", "a[b]", "a/b", "a b", "é"]) expect(isToolPattern(bad)).toBe(false);
  });
});

describe("authorize", () => {
  const read = countingTool("read_notes", "read").tool;
  const write = countingTool("write_notes", "write").tool;
  const external = countingTool("mcp__docs__search", "external").tool;

  it("applies the default per effect: read allow, write ask, external ask", () => {
    const policy = definePolicy();
    expect(decide(policy, read)).toBe("allow");
    expect(decide(policy, write)).toBe("ask");
    expect(decide(policy, external)).toBe("ask");
  });

  it("applies configured effect defaults, with a reason naming the effect on deny", () => {
    const policy = definePolicy({ defaults: { read: "ask", write: "deny", external: "allow" } });
    expect(decide(policy, read)).toBe("ask");
    expect(decide(policy, external)).toBe("allow");
    expect(authorize(write, { q: "x" }, contextFor(policy))).toEqual({
      type: "deny",
      reason: "the policy denies write tools by default",
    });
  });

  it("lets a matching rule override the effect default, in either direction", () => {
    expect(decide(definePolicy({ rules: [{ tool: "mcp__docs__*", decision: "allow" }] }), external)).toBe(
      "allow",
    );
    expect(decide(definePolicy({ rules: [{ tool: "read_*", decision: "deny" }] }), read)).toBe("deny");
    expect(decide(definePolicy({ rules: [{ tool: "mcp__other__*", decision: "allow" }] }), external)).toBe(
      "ask",
    );
  });

  it("ranks matching rules deny over ask over allow, whatever their order", () => {
    const rules = [
      { tool: "*", decision: "allow" },
      { tool: "mcp__docs__*", decision: "ask" },
      { tool: "mcp__docs__search", decision: "deny", reason: "search leaks queries" },
    ] as const;
    for (const ordered of [rules, [...rules].reverse(), [rules[1], rules[2], rules[0]]]) {
      const policy = definePolicy({ rules: [...ordered] });
      expect(authorize(external, { q: "x" }, contextFor(policy))).toEqual({
        type: "deny",
        reason: 'the policy rule "mcp__docs__search" denies mcp__docs__search: search leaks queries',
      });
    }
    const askOverAllow = definePolicy({
      rules: [
        { tool: "*", decision: "allow" },
        { tool: "mcp__*", decision: "ask" },
      ],
    });
    expect(decide(askOverAllow, external)).toBe("ask");
    expect(decide(askOverAllow, write)).toBe("allow");
    expect(resolvePolicyDecision(askOverAllow, external)).toEqual({
      decision: "ask",
      rule: { tool: "mcp__*", decision: "ask" },
    });
  });

  it("never lets a readOnlyHint annotation relax the decision", () => {
    const hinted = countingTool("mcp__docs__search", "external", {
      annotations: { readOnlyHint: true, destructiveHint: false, title: "Search" },
    }).tool;
    expect(decide(definePolicy(), hinted)).toBe("ask");
    expect(decide(definePolicy({ defaults: { external: "deny" } }), hinted)).toBe("deny");
    expect(decide(definePolicy({ rules: [{ tool: "mcp__*", decision: "deny" }] }), hinted)).toBe("deny");
    // Even a write tool declaring itself read-only keeps the write default.
    const lyingWrite = countingTool("write_notes", "write", { annotations: { readOnlyHint: true } }).tool;
    expect(decide(definePolicy(), lyingWrite)).toBe("ask");
  });

  it("builds an approval request bound to the action, with the hints only in the summary and marked unverified", () => {
    const hinted = countingTool("mcp__docs__search", "external", {
      annotations: { readOnlyHint: true },
    }).tool;
    const decision = authorize(hinted, { q: "x" }, contextFor(definePolicy()));
    expect(decision.type).toBe("ask");
    if (decision.type !== "ask") return;
    // A draft: only the store that saves it mints its id.
    expect(decision.request).not.toHaveProperty("id");
    expect(decision.request).toEqual({
      runId: "run_1",
      callId: "call_1",
      toolName: "mcp__docs__search",
      effect: "external",
      actionDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
      digestVersion: ACTION_DIGEST_VERSION,
      toolFingerprint: hinted.fingerprint,
      summary: 'mcp__docs__search (external) {"q":"x"} — server hints (unverified): readOnlyHint',
      createdAt: "2030-01-02T03:04:05.000Z",
      inputPreview: '{"q":"x"}',
      // Everything the digest binds, for the operator to see whole.
      input: { q: "x" },
      cwd: contextFor(definePolicy()).cwd,
      network: "deny",
      unverifiedHints: { readOnlyHint: true },
    });
  });

  it("binds the request to the context's network policy, defaulting to the policy's", () => {
    const policy = definePolicy({ network: "allow" });
    const fromPolicy = authorize(external, { q: "x" }, contextFor(policy));
    const denied = authorize(external, { q: "x" }, { ...contextFor(policy), network: "deny" });
    const explicit = authorize(external, { q: "x" }, { ...contextFor(policy), network: "allow" });
    if (fromPolicy.type !== "ask" || denied.type !== "ask" || explicit.type !== "ask")
      throw new Error("expected ask");
    expect(fromPolicy.request.actionDigest).toBe(explicit.request.actionDigest);
    expect(fromPolicy.request.actionDigest).not.toBe(denied.request.actionDigest);
  });
});
