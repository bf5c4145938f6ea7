import { basename } from "node:path";
import { isRecord } from "@agent/base";
import { definePolicy, PolicyError, type PolicyRule, resolvePolicyDecision } from "@agent/policy";
import type { ToolEffect } from "@agent/tools";
import { DEFAULT_CONFIG_FILE, PROJECT_MCP_FILE } from "./config-discovery.js";
import { type ConfigDocument, checkEditedText, memberSpan, readConfigDocument } from "./config-document.js";
import { appendArrayItem, appendObjectMember } from "./json-text-edit.js";

/** A tool name as a rule must spell it to name that one tool: no `*`, nothing a pattern could widen. */
const EXACT_TOOL_NAME = /^[a-zA-Z0-9_-]+$/;

/** The one change "always allow this tool" makes to a configuration file, not yet written. */
export interface AllowRuleEdit {
  /** The file as read; `writeEditedDocument` refuses if it holds anything else by then. */
  document: ConfigDocument;
  /** The rule added to `policy.rules`. */
  rule: { tool: string; decision: "allow" };
  /** The file's new text: the old one with the rule inserted, nothing else changed. */
  after: string;
  /** What `after` parses to. */
  expected: Record<string, unknown>;
}

/** The planned edit, or why there is none (one sentence or two, saying what to do instead). */
export type AllowRulePlan = { ok: true; edit: AllowRuleEdit } | { ok: false; reason: string };

/**
 * Plans adding `{ "tool": <name>, "decision": "allow" }` to the `policy.rules` of `file`, as a text
 * edit that leaves every other byte as it is. Refused when the rule would not make the policy allow
 * the tool: a matching deny rule (never overridden from a prompt) or ask rule (ask beats allow, in
 * any order), a name that is not exact, or Claude Code's `.mcp.json` that carries no `policy` yet.
 * Throws `ConfigError` when the file cannot be read as a JSON object.
 */
export function planAllowRule(file: string, tool: { name: string; effect: ToolEffect }): AllowRulePlan {
  if (!EXACT_TOOL_NAME.test(tool.name)) {
    return refuse("its name is not one a rule can name exactly (only letters, digits, _ and -)");
  }
  const document = readConfigDocument(file);
  const { root, text, value } = document;
  const policySpan = memberSpan(root, "policy");
  if (!policySpan && basename(file) === PROJECT_MCP_FILE) {
    return refuse(
      `${file} is Claude Code's project file and holds no "policy" of ours; rather than add one to a file another program reads, write the rule into an ${DEFAULT_CONFIG_FILE} (see the README: "always allow")`,
    );
  }
  const policy = value.policy ?? {};
  if (!isRecord(policy) || (policySpan && policySpan.kind !== "object")) {
    return refuse(`"policy" in ${file} is not an object`);
  }
  const rules = policy.rules ?? [];
  const rulesSpan = policySpan?.kind === "object" ? memberSpan(policySpan, "rules") : undefined;
  if (!Array.isArray(rules) || (rulesSpan && rulesSpan.kind !== "array")) {
    return refuse(`"policy.rules" in ${file} is not an array`);
  }
  const rule = { tool: tool.name, decision: "allow" } as const;
  const blocked = blockingRule(policy, rule, tool, file);
  if (blocked) return refuse(blocked);

  let after: string;
  if (rulesSpan?.kind === "array") after = appendArrayItem(text, rulesSpan, rule);
  else if (policySpan?.kind === "object") after = appendObjectMember(text, policySpan, "rules", [rule]);
  else after = appendObjectMember(text, root, "policy", { rules: [rule] });
  const expected = { ...value, policy: { ...policy, rules: [...rules, rule] } };
  // Checked now, before the diff is shown: what the operator confirms is exactly the rule.
  checkEditedText(document, after, expected);
  return { ok: true, edit: { document, rule, after, expected } };
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

function refuse(reason: string): AllowRulePlan {
  return { ok: false, reason };
}
