import { denyApprovalRequest, grantApprovalRequest, PolicyError } from "@agent/policy";
import type { StateRuntime } from "../runtime/runtime.js";
import { promptForApproval } from "./approval-prompt.js";
import { type CliIo, safeText, writeLine } from "./io.js";

/**
 * Asks the person at the terminal about one held call and records the answer as the approval's
 * decision. A decision made meanwhile from another shell stands (the gate reads it). Returns what
 * was answered; `interrupted` (Ctrl-C at the prompt) or a request that is gone decides nothing.
 */
export async function decideHeldCall(
  runtime: StateRuntime,
  io: CliIo,
  requestId: string,
  input: unknown,
  signal: AbortSignal,
): Promise<"approve" | "deny" | "interrupted" | "missing"> {
  const request = await runtime.state.approvals.getApproval(requestId);
  if (!request) return "missing";
  const answer = await promptForApproval(io, request, input, signal);
  if (answer === "interrupted") return answer;
  const decide = answer === "approve" ? grantApprovalRequest : denyApprovalRequest;
  try {
    await decide(runtime.state.approvals, request.id, runtime.events);
  } catch (error) {
    if (!(PolicyError.isInstance(error) && error.code === "approval_not_pending")) throw error;
    writeLine(
      io.stderr,
      `agent: request ${safeText(request.id)} was already decided elsewhere; using that decision.`,
    );
  }
  return answer;
}
