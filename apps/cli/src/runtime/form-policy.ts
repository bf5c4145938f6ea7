import { type Policy, resolvePolicyDecision } from "@agent/policy";

/** The name a server's forms (`elicitation/create`) are governed by in policy rules: `mcp_elicitation__<server>`. */
export function formToolName(server: string): string {
  return `mcp_elicitation__${server}`;
}

/**
 * Why the policy declines every form of `server` (a rule denying its forms, or the whole server:
 * `mcp__<server>__*`), or undefined. Only a rule refuses a form: the effect defaults do not, and an
 * `ask` is what showing the form at the terminal already is.
 */
export function formRefusal(policy: Policy, server: string): string | undefined {
  const match = resolvePolicyDecision(policy, { name: formToolName(server), effect: "external" });
  if (match.decision !== "deny" || !match.rule) return undefined;
  return `the policy rule "${match.rule.tool}" denies it`;
}
