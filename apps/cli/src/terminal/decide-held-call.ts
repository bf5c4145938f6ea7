import { type ApprovalRecord, denyApprovalRequest, grantApprovalRequest, PolicyError } from "@agent/policy";
import { type ApprovalDecidingState, assertMayGrant } from "../runtime/state-runtime.js";
import { type AlwaysAllowTarget, answerAlwaysAllow } from "./always-allow.js";
import { promptForApproval } from "./approval-prompt.js";
import { type CliIo, safeText, writeLine } from "./io.js";

/** What asking about a held call at the terminal needs, "always allow" included: the state it is decided in, and the policy file. */
export type HeldCallDeciding = ApprovalDecidingState & AlwaysAllowTarget;

/** Options of {@link decideHeldCall}. */
export interface DecideOptions {
  /** Offer "always allow this tool", writing the rule into this target's configuration file. */
  alwaysAllow?: AlwaysAllowTarget;
}

/**
 * Asks the person at the terminal about one held call and records the answer as the approval's
 * decision. A decision made meanwhile from another shell stands (the gate reads it). Returns what
 * was answered; `interrupted` (Ctrl-C at the prompt) or a request that is gone decides nothing.
 * `always`: a rule allowing the tool was written and the policy reloaded; the request is voided.
 */
export async function decideHeldCall(
  runtime: ApprovalDecidingState,
  io: CliIo,
  requestId: string,
  input: unknown,
  signal: AbortSignal,
  options: DecideOptions = {},
): Promise<"approve" | "deny" | "always" | "interrupted" | "missing" | "elsewhere"> {
  const request = await runtime.state.approvals.getApproval(requestId);
  if (!request) return "missing";
  // A call the flow guard held is allowed by the rules already: an allow rule would change nothing
  // (the call would be held again), so "always allow" is not offered for it.
  const offerAlwaysAllow = options.alwaysAllow !== undefined && request.heldBy !== "tainted_flow";
  let answer = await promptForApproval(io, request, input, signal, {
    approvals: runtime.state.approvals,
    offerAlwaysAllow,
  });
  while (answer === "always" && options.alwaysAllow) {
    const written = await answerAlwaysAllow(
      { approvals: runtime.state.approvals, events: runtime.events },
      options.alwaysAllow,
      io,
      request,
      signal,
    );
    if (written === "written") return "always";
    // Nothing was written: back to the first question (the request is still on the screen).
    answer =
      written === "again"
        ? await promptForApproval(io, request, input, signal, {
            approvals: runtime.state.approvals,
            offerAlwaysAllow: true,
            askAgain: true,
          })
        : written;
  }
  // `always` is only answered where it was offered (and then handled above): it decides nothing else.
  if (answer === "interrupted" || answer === "always") return "interrupted";
  if (typeof answer === "object") {
    // Another process decided while the prompt was open: that decision won; say which.
    writeLine(io.stderr);
    writeLine(io.stderr, `agent: ${describeElsewhere(answer.decidedElsewhere)}`);
    return "elsewhere";
  }
  // A grant the agents would void must not be given: say who can approve instead.
  if (answer === "approve") assertMayGrant(runtime);
  const decide = answer === "approve" ? grantApprovalRequest : denyApprovalRequest;
  try {
    await decide(runtime.state.approvals, request.id, runtime.events);
  } catch (error) {
    if (!(PolicyError.isInstance(error) && error.code === "approval_not_pending")) throw error;
    const current = await runtime.state.approvals.getApproval(request.id);
    writeLine(
      io.stderr,
      current
        ? `agent: ${describeElsewhere(current)}`
        : `agent: request ${safeText(request.id)} was already decided elsewhere; using that decision.`,
    );
    return "elsewhere";
  }
  return answer;
}

/** One sentence: which decision another process took, and what happens now. */
function describeElsewhere(record: ApprovalRecord): string {
  const id = safeText(record.id);
  if (record.status === "granted" || record.status === "consumed") {
    return `request ${id} was approved elsewhere (in another process) while this prompt was open; that decision stands: the call runs.`;
  }
  if (record.status === "denied") {
    return `request ${id} was denied elsewhere (in another process) while this prompt was open; that decision stands: the call does not run.`;
  }
  return `request ${id} was ${safeText(record.status)} elsewhere (${safeText(record.voidReason ?? "no reason given")}); the call is checked again.`;
}
