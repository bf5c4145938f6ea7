import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { definePolicy, PolicyError, type PolicyRule, resolvePolicyDecision } from "@agent/policy";
import type { ToolEffect } from "@agent/tools";
import { ConfigError } from "./config-error.js";
import { appendArrayItem, appendObjectMember } from "./json-text-edit.js";
import { DEFAULT_CONFIG_FILE, PROJECT_MCP_FILE } from "./load-config.js";
import { type JsonSpan, parseJsonText, scanJsonSpans } from "./parse-json-text.js";

/** A tool name as a rule must spell it to name that one tool: no `*`, nothing a pattern could widen. */
const EXACT_TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** The one change "always allow this tool" makes to a configuration file, not yet written. */
export interface AllowRuleEdit {
  file: string;
  /** The rule added to `policy.rules`. */
  rule: { tool: string; decision: "allow" };
  /** The file's bytes as read: the write is refused if the file holds anything else by then. */
  bytes: Buffer;
  before: string;
  after: string;
}

/** The planned edit, or why there is none (one sentence or two, saying what to do instead). */
export type AllowRulePlan = { ok: true; edit: AllowRuleEdit } | { ok: false; reason: string };

/**
 * Plans adding `{ "tool": <name>, "decision": "allow" }` to the `policy.rules` of `file`, as a text
 * edit that leaves every other byte as it is. Refused when the rule would not make the policy allow
 * the tool: a matching deny rule (never overridden from a prompt) or ask rule (ask beats allow, in
 * any order), a name that is not exact, or Claude Code's `.mcp.json` that carries no `policy` yet.
 */
export function planAllowRule(file: string, tool: { name: string; effect: ToolEffect }): AllowRulePlan {
  if (!EXACT_TOOL_NAME.test(tool.name)) {
    return refuse("its name is not one a rule can name exactly (only letters, digits, _ and -)");
  }
  const bytes = readFileSync(file);
  const before = bytes.toString("utf8");
  if (!Buffer.from(before, "utf8").equals(bytes)) {
    return refuse(`${file} is not valid UTF-8 text, so it cannot be edited without changing other bytes`);
  }
  const root = scanJsonSpans(before, file);
  const document = parseJsonText(before, file);
  if (root.kind !== "object" || !isRecord(document)) return refuse(`${file} is not a JSON object`);
  const policyMember = memberOf(root, "policy");
  if (!policyMember && basename(file) === PROJECT_MCP_FILE) {
    return refuse(
      `${file} is Claude Code's project file and holds no "policy" of ours; rather than add one to a file another program reads, write the rule into an ${DEFAULT_CONFIG_FILE} (see the README: "always allow")`,
    );
  }
  const policy = document.policy ?? {};
  if (!isRecord(policy) || (policyMember && policyMember.kind !== "object")) {
    return refuse(`"policy" in ${file} is not an object`);
  }
  const rules = policy.rules ?? [];
  const rulesMember = policyMember?.kind === "object" ? memberOf(policyMember, "rules") : undefined;
  if (!Array.isArray(rules) || (rulesMember && rulesMember.kind !== "array")) {
    return refuse(`"policy.rules" in ${file} is not an array`);
  }
  const rule = { tool: tool.name, decision: "allow" } as const;
  const blocked = blockingRule(policy, rule, tool, file);
  if (blocked) return refuse(blocked);

  let after: string;
  if (rulesMember?.kind === "array") after = appendArrayItem(before, rulesMember, rule);
  else if (policyMember?.kind === "object") after = appendObjectMember(before, policyMember, "rules", [rule]);
  else after = appendObjectMember(before, root, "policy", { rules: [rule] });
  // The text edit must mean exactly the intended change; anything else is a bug, and nothing is written.
  const expected = { ...document, policy: { ...policy, rules: [...rules, rule] } };
  if (!isDeepStrictEqual(parseJsonText(after, file), expected)) {
    throw new ConfigError("config_invalid", `${file}: the rule could not be added without changing more.`, {
      file,
    });
  }
  return { ok: true, edit: { file, rule, bytes, before, after } };
}

/** Why adding `rule` would not make the policy allow the tool, or `undefined` when it would. */
function blockingRule(
  policy: Record<string, unknown>,
  rule: PolicyRule,
  tool: { name: string; effect: ToolEffect },
  file: string,
): string | undefined {
  let match: ReturnType<typeof resolvePolicyDecision>;
  try {
    const rules = Array.isArray(policy.rules) ? policy.rules : [];
    match = resolvePolicyDecision(definePolicy({ ...policy, rules: [...rules, rule] }), tool);
  } catch (error) {
    if (!PolicyError.isInstance(error)) throw error;
    return `the policy in ${file} is invalid as it stands; fix it first (agent mcp list shows the problem)`;
  }
  if (match.decision === "allow") return undefined;
  const shown = JSON.stringify({ tool: match.rule?.tool, decision: match.rule?.decision });
  if (match.decision === "deny") {
    return `the rule ${shown} in ${file} denies it, and an answer at a prompt never overrides a deny; change that rule by hand if you mean to allow this tool`;
  }
  return `the rule ${shown} in ${file} matches it, and among matching rules ask beats allow (in any order), so an allow rule would change nothing; narrow that rule by hand, or approve once`;
}

function memberOf(object: Extract<JsonSpan, { kind: "object" }>, key: string): JsonSpan | undefined {
  return object.members.find((member) => member.key === key)?.value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function refuse(reason: string): AllowRulePlan {
  return { ok: false, reason };
}
