import type { JsonValue, RegisteredTool } from "@agent/tools";
import { ACTION_DIGEST_VERSION, computeActionDigest } from "./action-digest.js";
import type { ApprovalRequest } from "./approval-store.js";
import { previewInput, summarizeAction } from "./approval-summary.js";
import type { NetworkPolicy, Policy, PolicyDecision, PolicyRule } from "./policy.js";
import { serverToolsPatternOf } from "./server-scope.js";
import { matchesToolPattern } from "./tool-pattern.js";

/** The call being authorized: which run it belongs to and where it would run. */
export interface PolicyContext {
  policy: Policy;
  runId: string;
  callId: string;
  cwd: string;
  /** The network policy the call would run under; defaults to `policy.network`. */
  network?: NetworkPolicy;
  /** The clock for `createdAt`; defaults to the system clock. */
  now?: () => Date;
  /** Makes approval request ids; defaults to `apr_<uuid>`. */
  createId?: () => string;
}

/** What {@link authorize} decides: run the call, refuse it, or hold it until a person approves `request`. */
export type Authorization =
  | { type: "allow" }
  | { type: "deny"; reason: string }
  | { type: "ask"; request: ApprovalRequest };

/** Which decision the policy makes for a tool, and which rule (if any) made it. */
export interface PolicyMatch {
  decision: PolicyDecision;
  /** The deciding rule; absent when no rule matched and the effect default applied. */
  rule?: PolicyRule;
}

const STRENGTH: Record<PolicyDecision, number> = Object.freeze({ allow: 0, ask: 1, deny: 2 });

/**
 * The policy's decision for a tool by name and effect: among matching rules deny beats ask beats allow
 * (the first such rule is reported); with no match, the effect's default. Annotations play no part.
 * A deny or ask rule naming all of a server's tools (`mcp__docs__*`, `mcp__*`) also governs what the
 * server offers besides them (resources, prompts, sampling); allowing those takes a rule naming them.
 */
export function resolvePolicyDecision(
  policy: Policy,
  tool: Pick<RegisteredTool, "name" | "effect">,
): PolicyMatch {
  const wholeServer = serverToolsPatternOf(tool.name);
  let strongest: PolicyRule | undefined;
  for (const rule of policy.rules) {
    if (!ruleGoverns(rule, tool.name, wholeServer)) continue;
    if (!strongest || STRENGTH[rule.decision] > STRENGTH[strongest.decision]) strongest = rule;
  }
  return strongest
    ? { decision: strongest.decision, rule: strongest }
    : { decision: policy.defaults[tool.effect] };
}

/**
 * Decides one validated call. `ask` carries a new approval request bound by its action digest to the
 * tool's name and fingerprint, the input, cwd and network policy. The tool's annotations never relax
 * the decision: they only appear in the request's summary, marked unverified.
 */
export function authorize(tool: RegisteredTool, input: unknown, context: PolicyContext): Authorization {
  const { policy } = context;
  const match = resolvePolicyDecision(policy, tool);
  if (match.decision === "allow") return { type: "allow" };
  if (match.decision === "deny") return { type: "deny", reason: denyReason(tool, match) };

  const network = context.network ?? policy.network;
  const request: ApprovalRequest = {
    id: (context.createId ?? createApprovalId)(),
    runId: context.runId,
    callId: context.callId,
    toolName: tool.name,
    effect: tool.effect,
    actionDigest: computeActionDigest({
      toolName: tool.name,
      toolFingerprint: tool.fingerprint,
      input,
      cwd: context.cwd,
      network,
    }),
    digestVersion: ACTION_DIGEST_VERSION,
    toolFingerprint: tool.fingerprint,
    summary: summarizeAction(tool, input),
    createdAt: (context.now ?? systemNow)().toISOString(),
    inputPreview: previewInput(input),
    input: (input ?? null) as JsonValue,
    cwd: context.cwd,
    network,
  };
  if (tool.annotations && Object.keys(tool.annotations).length > 0)
    request.unverifiedHints = tool.annotations;
  return { type: "ask", request };
}

function ruleGoverns(rule: PolicyRule, toolName: string, wholeServer: string | undefined): boolean {
  if (matchesToolPattern(rule.tool, toolName)) return true;
  // An allow of a server's tools must not also let it read resources or spend the model (sampling).
  return wholeServer !== undefined && rule.decision !== "allow" && matchesToolPattern(rule.tool, wholeServer);
}

function denyReason(tool: Pick<RegisteredTool, "name" | "effect">, match: PolicyMatch): string {
  if (!match.rule) return `the policy denies ${tool.effect} tools by default`;
  const because = match.rule.reason === undefined ? "" : `: ${match.rule.reason}`;
  return `the policy rule "${match.rule.tool}" denies ${tool.name}${because}`;
}

function createApprovalId(): string {
  return `apr_${globalThis.crypto.randomUUID()}`;
}

function systemNow(): Date {
  return new Date();
}
