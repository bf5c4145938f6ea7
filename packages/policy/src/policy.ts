import type { ToolEffect } from "@agent/tools";
import { z } from "zod";
import { POLICY_ERROR_CODES, PolicyError } from "./errors.js";
import { TOOL_PATTERN } from "./tool-pattern.js";

/** What the policy says about a call: run it, hold it for a person, or refuse it. */
export type PolicyDecision = "allow" | "ask" | "deny";

/**
 * Whether calls may reach the network: not at all, freely, or only the listed host names (through an
 * allow-listing proxy). Part of every action digest; only an isolating sandbox enforces it.
 */
export type NetworkPolicy = "deny" | "allow" | { readonly allowHosts: readonly string[] };

/** `required`: refuse every call unless the sandbox isolates; `optional`: run without isolation if need be. */
export type SandboxRequirement = "optional" | "required";

/** One rule: calls to tools whose name matches `tool` get `decision`. */
export interface PolicyRule {
  /** A tool name, or a pattern where `*` matches any run of characters (`mcp__docs__*`, `*`). */
  readonly tool: string;
  readonly decision: PolicyDecision;
  /** Shown to the model and the operator when the rule denies. */
  readonly reason?: string;
}

/** A complete, validated policy; build one with {@link definePolicy}. */
export interface Policy {
  /** The decision for a tool no rule matches, by the tool's effect. */
  readonly defaults: Readonly<Record<ToolEffect, PolicyDecision>>;
  /** Among the rules matching a tool, deny beats ask beats allow; a match replaces the effect default. */
  readonly rules: readonly PolicyRule[];
  readonly network: NetworkPolicy;
  readonly sandbox: SandboxRequirement;
}

const decisionSchema = z.enum(["allow", "ask", "deny"]);

/** The JSON form of a policy (every field optional), as a config file embeds it under `policy`. */
export const policySchema = z.strictObject({
  defaults: z
    .strictObject({
      read: decisionSchema.optional(),
      write: decisionSchema.optional(),
      external: decisionSchema.optional(),
    })
    .optional(),
  rules: z
    .array(
      z.strictObject({
        tool: z.string().regex(TOOL_PATTERN, {
          message: 'must be a tool name or pattern of [a-zA-Z0-9_-] and "*", e.g. "mcp__docs__*"',
        }),
        decision: decisionSchema,
        reason: z.string().optional(),
      }),
    )
    .optional(),
  network: z.enum(["deny", "allow"]).optional(),
  sandbox: z.enum(["optional", "required"]).optional(),
});

/** A policy as written in JSON: what {@link definePolicy} accepts. */
export type PolicyConfig = z.input<typeof policySchema>;

/** The decisions used for effects a policy leaves unset: reads run, writes and external calls ask. */
export const DEFAULT_EFFECT_DECISIONS: Readonly<Record<ToolEffect, PolicyDecision>> = Object.freeze({
  read: "allow",
  write: "ask",
  external: "ask",
});

/**
 * Validates a policy's JSON form and fills what it leaves out (effect defaults, no rules, network
 * `deny`, sandbox `optional`); throws `PolicyError` (`invalid_policy`) naming every bad field.
 */
export function definePolicy(config: PolicyConfig = {}): Policy {
  const parsed = policySchema.safeParse(config);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path
        .map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`))
        .join("");
      return `policy${path}: ${issue.message}`;
    });
    throw new PolicyError(
      POLICY_ERROR_CODES.invalidPolicy,
      `The policy is invalid; fix these fields and load it again:\n  ${problems.join("\n  ")}`,
      { cause: parsed.error },
    );
  }
  const { defaults = {}, rules = [], network = "deny", sandbox = "optional" } = parsed.data;
  return Object.freeze({
    defaults: Object.freeze({
      read: defaults.read ?? DEFAULT_EFFECT_DECISIONS.read,
      write: defaults.write ?? DEFAULT_EFFECT_DECISIONS.write,
      external: defaults.external ?? DEFAULT_EFFECT_DECISIONS.external,
    }),
    rules: Object.freeze(
      rules.map((rule) =>
        Object.freeze(
          rule.reason === undefined
            ? { tool: rule.tool, decision: rule.decision }
            : { tool: rule.tool, decision: rule.decision, reason: rule.reason },
        ),
      ),
    ),
    network,
    sandbox,
  });
}
