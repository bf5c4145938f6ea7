import {
  copyFlowSource,
  type FlowSource,
  flowSourceKey,
  type JsonValue,
  type RegisteredTool,
} from "@agent/tools";
import { ACTION_DIGEST_VERSION, computeActionDigest } from "./action-digest.js";
import type { ApprovalDraft } from "./approval-store.js";
import { previewInput, summarizeAction } from "./approval-summary.js";
import {
  DECISION_STRENGTH,
  type NetworkPolicy,
  type Policy,
  type PolicyDecision,
  type PolicyRule,
} from "./policy.js";
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
  /** The untrusted sources the call's run has taken in; absent or empty for a clean run. */
  taint?: readonly FlowSource[] | undefined;
  /**
   * Whether the call can carry data out of the machine or act on the world (a sink, which the flow
   * guard holds in a tainted run); defaults to the tool's effect being `external`.
   */
  sink?: boolean;
}

/**
 * What {@link authorize} decides: run the call, refuse it, or hold it until a person approves `request`
 * (a draft: the approval store mints its id when the request is saved).
 */
export type Authorization =
  | { type: "allow" }
  | { type: "deny"; reason: string }
  | { type: "ask"; request: ApprovalDraft };

/** Which decision the policy makes for a tool, and which rule (if any) made it. */
export interface PolicyMatch {
  decision: PolicyDecision;
  /** The deciding rule; absent when no rule matched and the effect default applied. */
  rule?: PolicyRule;
  /** The flow guard turned what would be `allow` in a clean run into this `ask`. */
  heldByGuard?: true;
}

/** How a call of a tainted run is judged (see {@link resolvePolicyDecision}). */
export interface TaintedCall {
  /** Whether the call is a sink: it can carry data out of the machine or act on the world. */
  sink: boolean;
}

const STRENGTH = DECISION_STRENGTH;

/**
 * The policy's decision for a tool by name and effect: among matching rules deny beats ask beats allow
 * (the first such rule is reported); with no match, the effect's default. Annotations play no part.
 * A deny or ask rule naming all of a server's tools (`mcp__docs__*`, `mcp__*`) also governs what the
 * server offers besides them (resources, prompts, sampling); allowing those takes a rule naming them.
 * Given `tainted` (a call of a run that took in untrusted content) and a policy whose `flows` is
 * `guard`, each rule that has a `tainted` decision decides by it; where no matching rule has one, a
 * sink's `allow` becomes `ask` (held by the guard).
 */
export function resolvePolicyDecision(
  policy: Policy,
  tool: Pick<RegisteredTool, "name" | "effect">,
  tainted?: TaintedCall,
): PolicyMatch {
  const guard = tainted !== undefined && policy.flows !== "off" ? tainted : undefined;
  const wholeServer = serverToolsPatternOf(tool.name);
  let strongest: PolicyRule | undefined;
  let strongestDecision: PolicyDecision = "allow";
  // Whether a matching rule says what it decides in a tainted run: then the rules speak for
  // themselves, and the guard adds no hold of its own (a specific rule's `tainted: "allow"` is not
  // outweighed by a server-wide `allow` that says nothing about taint).
  let declared = false;
  for (const rule of policy.rules) {
    if (!ruleGoverns(rule, tool.name, wholeServer)) continue;
    const decision =
      guard && rule.tainted !== undefined ? strongerOf(rule.tainted, rule.decision) : rule.decision;
    if (guard && rule.tainted !== undefined) declared = true;
    if (!strongest || STRENGTH[decision] > STRENGTH[strongestDecision]) {
      strongest = rule;
      strongestDecision = decision;
    }
  }
  const decided = strongest ? strongestDecision : policy.defaults[tool.effect];
  // In a tainted run, a sink is held where the policy would let it run and no rule said otherwise.
  const held = guard !== undefined && !declared && guard.sink && decided === "allow";
  const match: PolicyMatch = strongest
    ? { decision: held ? "ask" : strongestDecision, rule: strongest }
    : { decision: held ? "ask" : decided };
  if (held) match.heldByGuard = true;
  return match;
}

/** The stronger of two decisions: a rule's `tainted` decision never relaxes its `decision`. */
function strongerOf(first: PolicyDecision, second: PolicyDecision): PolicyDecision {
  return STRENGTH[first] >= STRENGTH[second] ? first : second;
}

/**
 * Decides one validated call. `ask` carries a draft approval request (no id yet) bound by its action digest to the
 * tool's name and fingerprint, the input, cwd and network policy. The tool's annotations never relax
 * the decision: they only appear in the request's summary, marked unverified.
 */
export function authorize(tool: RegisteredTool, input: unknown, context: PolicyContext): Authorization {
  const { policy } = context;
  // Taint counts only where the guard is on: with `flows: "off"` it is neither judged nor bound.
  const taint =
    policy.flows !== "off" && context.taint && context.taint.length > 0 ? context.taint : undefined;
  const match = resolvePolicyDecision(
    policy,
    tool,
    taint ? { sink: context.sink ?? tool.effect === "external" } : undefined,
  );
  if (match.decision === "allow") return { type: "allow" };
  if (match.decision === "deny") return { type: "deny", reason: denyReason(tool, match, taint) };

  const network = context.network ?? policy.network;
  const request: ApprovalDraft = {
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
      ...(taint ? { taint: taint.map(flowSourceKey) } : {}),
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
  if (taint) request.taint = taint.map(copyFlowSource);
  if (match.heldByGuard) request.heldBy = TAINTED_FLOW;
  return { type: "ask", request };
}

/** The reason code of a call the flow guard held: its run took in untrusted content. */
export const TAINTED_FLOW = "tainted_flow";

function denyReason(
  tool: Pick<RegisteredTool, "name" | "effect">,
  match: PolicyMatch,
  taint: readonly FlowSource[] | undefined,
): string {
  const inTaintedRun =
    taint && match.rule?.tainted === "deny" && match.rule.decision !== "deny"
      ? " in a run that took in untrusted content"
      : "";
  if (!match.rule) return `the policy denies ${tool.effect} tools by default`;
  const because = match.rule.reason === undefined ? "" : `: ${match.rule.reason}`;
  return `the policy rule "${match.rule.tool}" denies ${tool.name}${inTaintedRun}${because}`;
}

function ruleGoverns(rule: PolicyRule, toolName: string, wholeServer: string | undefined): boolean {
  if (matchesToolPattern(rule.tool, toolName)) return true;
  // An allow of a server's tools must not also let it read resources or spend the model (sampling).
  return wholeServer !== undefined && rule.decision !== "allow" && matchesToolPattern(rule.tool, wholeServer);
}

function systemNow(): Date {
  return new Date();
}
