import { type ApprovalRecord, denyApprovalRequest, grantApprovalRequest } from "@agent/policy";
import { EXIT_CODES, type ExitCode } from "../exit-codes.js";
import { type ApprovalDecidingState, assertMayGrant, type StateRuntime } from "../runtime/state-runtime.js";
import {
  agentCommand,
  type CliIo,
  safeLine,
  safeText,
  styleFor,
  writeJson,
  writeLine,
} from "../terminal/io.js";
import { formatTable, terminalWidth, truncate } from "../terminal/table.js";
import { isLateDecision, lateDecisionError } from "./late-decision.js";

/** `agent approvals list [--pending]`: pending requests first, then (without `--pending`) decided ones. */
export async function approvalsListCommand(
  runtime: Pick<StateRuntime, "state">,
  io: CliIo,
  options: { json: boolean; pending?: boolean },
): Promise<ExitCode> {
  const records = await runtime.state.approvals.listApprovals();
  const pending = records.filter(isPending);
  const ordered = options.pending ? pending : [...pending, ...records.filter((record) => !isPending(record))];
  if (options.json) {
    writeJson(io, { approvals: ordered });
    return EXIT_CODES.ok;
  }
  if (ordered.length === 0) {
    writeLine(io.stdout, options.pending ? "No approval requests are pending." : "No approval requests.");
    return EXIT_CODES.ok;
  }
  const style = styleFor(io.stdout, io.env);
  // A store shared by several machines says where each held call waits: show it when it does.
  const shared = ordered.some((record) => record.requestedOnHost !== undefined);
  // Every cell is escaped: the state database is a file anyone with access may have edited.
  const rows = ordered.map((record) => [
    safeLine(record.id),
    isPending(record) ? style.yellow(safeLine(record.status)) : safeLine(record.status),
    safeLine(record.runId),
    ...(shared ? [safeLine(record.requestedOnHost ?? "?")] : []),
    safeLine(record.toolName),
    safeLine(record.createdAt),
    safeLine(truncate(record.summary, 70)),
  ]);
  const header = ["ID", "STATUS", "RUN", ...(shared ? ["HOST"] : []), "TOOL", "CREATED", "SUMMARY"];
  const [run, tool, created] = shared ? [2, 4, 5] : [2, 3, 4];
  // Narrow terminals keep the id (to approve with), status and summary (which names the tool);
  // `approvals show` has the rest.
  const fit = { width: terminalWidth(io.stdout, io.env), optional: [run, tool, created] };
  for (const line of formatTable([header.map(style.dim), ...rows], fit)) {
    writeLine(io.stdout, line);
  }
  return EXIT_CODES.ok;
}

/** `agent approvals approve <id>` / `deny <id>`: decides one pending request and records the decision in the audit trail. */
export async function approvalsDecideCommand(
  runtime: ApprovalDecidingState,
  io: CliIo,
  options: { id: string; decision: "approve" | "deny"; reason?: string | undefined },
): Promise<ExitCode> {
  if (options.decision === "approve") assertMayGrant(runtime);
  const { approvals } = runtime.state;
  const decide = (): Promise<ApprovalRecord> =>
    options.decision === "approve"
      ? grantApprovalRequest(approvals, options.id, runtime.events)
      : denyApprovalRequest(
          approvals,
          options.id,
          runtime.events,
          options.reason === undefined ? {} : { reason: options.reason },
        );
  const record = await decide().catch(async (error: unknown) => {
    // The store's atomic decision answered "not pending": another decision won; say whose.
    if (!isLateDecision(error)) throw error;
    throw await lateDecisionError(approvals, options.id, { cause: error, agent: agentCommand(io) });
  });
  if (options.decision === "approve") {
    writeLine(
      io.stdout,
      safeText(
        `Approved ${record.id} once for run ${record.runId}. Run it with: ${agentCommand(io)} resume ${record.runId}`,
      ),
    );
  } else {
    writeLine(
      io.stdout,
      safeText(`Denied ${record.id}; resuming run ${record.runId} will report policy_denied.`),
    );
  }
  return EXIT_CODES.ok;
}

function isPending(record: ApprovalRecord): boolean {
  return record.status === "pending";
}
