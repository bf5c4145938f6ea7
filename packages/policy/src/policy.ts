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
  /**
   * What the rule decides in a tainted run (one that took in untrusted content; see the flow guard),
   * never weaker than `decision`. Where no rule matching a call has one, a sink's `allow` becomes `ask`.
   */
  readonly tainted?: PolicyDecision;
}

/**
 * `guard` (the default): once a run has taken in untrusted content, its sinks (calls that can carry
 * data out or act on the world) are held for approval even where a rule allows them. `off`: taint is
 * neither tracked into decisions nor bound into approvals.
 */
export type FlowsMode = "guard" | "off";

/** A complete, validated policy; build one with {@link definePolicy}. */
export interface Policy {
  /** The decision for a tool no rule matches, by the tool's effect. */
  readonly defaults: Readonly<Record<ToolEffect, PolicyDecision>>;
  /** Among the rules matching a tool, deny beats ask beats allow; a match replaces the effect default. */
  readonly rules: readonly PolicyRule[];
  readonly network: NetworkPolicy;
  readonly sandbox: SandboxRequirement;
  readonly flows: FlowsMode;
}

const decisionSchema = z.enum(["allow", "ask", "deny"]);

/** How strong each decision is: deny beats ask beats allow. */
export const DECISION_STRENGTH: Readonly<Record<PolicyDecision, number>> = Object.freeze({
  allow: 0,
  ask: 1,
  deny: 2,
});
const STRENGTH = DECISION_STRENGTH;

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
      z
        .strictObject({
          tool: z.string().regex(TOOL_PATTERN, {
            message: 'must be a tool name or pattern of [a-zA-Z0-9_-] and "*", e.g. "mcp__docs__*"',
          }),
          decision: decisionSchema,
          reason: z.string().optional(),
          tainted: decisionSchema.optional(),
        })
        .refine((rule) => rule.tainted === undefined || STRENGTH[rule.tainted] >= STRENGTH[rule.decision], {
          message:
            'its "tainted" decision may not be weaker than its "decision": a run that took in untrusted content is never trusted more than a clean one',
          path: ["tainted"],
        }),
    )
    .optional(),
  network: z.enum(["deny", "allow"]).optional(),
  sandbox: z.enum(["optional", "required"]).optional(),
  flows: z.enum(["guard", "off"]).optional(),
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
 * `deny`, sandbox `optional`, flows `guard`); throws `PolicyError` (`invalid_policy`) naming every bad field.
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
  const { defaults = {}, rules = [], network = "deny", sandbox = "optional", flows = "guard" } = parsed.data;
  return Object.freeze({
    defaults: Object.freeze({
      read: defaults.read ?? DEFAULT_EFFECT_DECISIONS.read,
      write: defaults.write ?? DEFAULT_EFFECT_DECISIONS.write,
      external: defaults.external ?? DEFAULT_EFFECT_DECISIONS.external,
    }),
    rules: Object.freeze(rules.map(freezeRule)),
    network,
    sandbox,
    flows,
  });
}

type RuleConfig = NonNullable<z.output<typeof policySchema>["rules"]>[number];

function freezeRule(rule: RuleConfig): PolicyRule {
  const frozen: { -readonly [K in keyof PolicyRule]: PolicyRule[K] } = {
    tool: rule.tool,
    decision: rule.decision,
  };
  if (rule.reason !== undefined) frozen.reason = rule.reason;
  if (rule.tainted !== undefined) frozen.tainted = rule.tainted;
  return Object.freeze(frozen);
}
