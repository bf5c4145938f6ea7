import { type CallRunCall, callOfCallRun, isCallRun } from "@agent/loop";
import { serverOfToolName } from "@agent/mcp-client";
import { type ApprovalRecord, computeActionDigest, type NetworkPolicy } from "@agent/policy";
import { canonicalJson, type FlowSource, flowSourceKey, type JsonValue } from "@agent/tools";
import { CliExit, EXIT_CODES, type ExitCode } from "../exit-codes.js";
import type { StateRuntime } from "../runtime/state-runtime.js";
import { describeNetwork } from "../terminal/describe-network.js";
import {
  agentCommand,
  type CliIo,
  safeLine,
  safeText,
  styleFor,
  writeJson,
  writeLine,
} from "../terminal/io.js";
import { taintLines } from "../terminal/taint-lines.js";

/** Everything an approval's digest binds, as `approvals show` reports it. */
export interface ApprovalBinding {
  toolName: string;
  toolFingerprint: string;
  /** The validated input, whole. */
  input: JsonValue | undefined;
  /** Its RFC 8785 canonical JSON: exactly what the digest hashes. */
  canonicalInput: string | undefined;
  /** The cwd: the workspace root's real path when the call was made. */
  cwd: string | undefined;
  network: NetworkPolicy | undefined;
  /** The untrusted sources the call's run had taken in (the digest binds them); empty for a clean run. */
  taint: FlowSource[];
  actionDigest: string;
  /**
   * Whether the fields above hash to `actionDigest` (they are what the grant applies to); `null`
   * when the request predates the stored input, cwd and network, so it cannot be checked.
   */
  digestVerified: boolean | null;
  /** Where input and cwd came from: the request itself, or (older requests) the run that asked. */
  source: "request" | "run";
}

/**
 * `agent approvals show <id> [--json]`: the request and everything its digest binds (tool name,
 * tool fingerprint, the whole canonical input, cwd real path, network policy), with the digest
 * recomputed from them, so what the operator reads is provably what a grant would apply to.
 */
export async function approvalsShowCommand(
  runtime: Pick<StateRuntime, "state">,
  io: CliIo,
  options: { id: string; json: boolean },
): Promise<ExitCode> {
  const record = await runtime.state.approvals.getApproval(options.id);
  if (!record) {
    throw new CliExit(
      EXIT_CODES.usage,
      `No approval request has id "${options.id}"; "${agentCommand(io)} approvals list" shows them.`,
    );
  }
  const binding = await bindingOf(record, runtime);
  if (options.json) {
    writeJson(io, { approval: record, binding });
    return EXIT_CODES.ok;
  }
  printApproval(io, record, binding);
  return EXIT_CODES.ok;
}

/** What `record` binds, recomputing its digest; falls back to the run for requests stored before the fields were. */
export async function bindingOf(
  record: ApprovalRecord,
  runtime: Pick<StateRuntime, "state">,
): Promise<ApprovalBinding> {
  const run = record.input === undefined ? await askingCall(runtime, record.runId) : undefined;
  const input = record.input ?? run?.input;
  const cwd = record.cwd ?? run?.cwd;
  const { network } = record;
  let canonicalInput: string | undefined;
  try {
    canonicalInput = input === undefined ? undefined : canonicalJson(input);
  } catch {
    canonicalInput = undefined;
  }
  let digestVerified: boolean | null = null;
  if (record.input !== undefined && cwd !== undefined && network !== undefined) {
    try {
      digestVerified =
        computeActionDigest({
          toolName: record.toolName,
          toolFingerprint: record.toolFingerprint,
          input: record.input,
          cwd,
          network,
          taint: (record.taint ?? []).map(flowSourceKey),
        }) === record.actionDigest;
    } catch {
      digestVerified = false;
    }
  }
  return {
    toolName: record.toolName,
    toolFingerprint: record.toolFingerprint,
    input,
    canonicalInput,
    cwd,
    network,
    taint: record.taint ?? [],
    actionDigest: record.actionDigest,
    digestVerified,
    source: record.input === undefined ? "run" : "request",
  };
}

/** The call of the one-call run that asked, if the run is one (requests saved before their input were only made by those). */
async function askingCall(
  runtime: Pick<StateRuntime, "state">,
  runId: string,
): Promise<CallRunCall | undefined> {
  const run = await runtime.state.runs.loadRun(runId);
  return run && isCallRun(run) ? callOfCallRun(run) : undefined;
}

function printApproval(io: CliIo, record: ApprovalRecord, binding: ApprovalBinding): void {
  const style = styleFor(io.stdout, io.env);
  const out = (label: string, value: string) => writeLine(io.stdout, `  ${label.padEnd(17)}${value}`);
  const server = serverOfToolName(record.toolName);
  // Everything below comes from the state database (a file) and, through it, from a server: escaped.
  writeLine(io.stdout, style.bold(`Approval request ${safeLine(record.id)}`));
  out("status", safeLine(describeStatus(record)));
  out("run", `${safeLine(record.runId)}  (call ${safeLine(record.callId)})`);
  out("server", server ? safeLine(server) : "local tool");
  out("effect", safeLine(record.effect));
  out("created", safeLine(record.createdAt));
  if (record.requestedOnHost !== undefined) out("waits on host", safeLine(record.requestedOnHost));
  if (record.decidedBy !== undefined) out("decided by", safeLine(record.decidedBy));
  const taint = taintLines(record);
  for (const line of taint.warning) writeLine(io.stdout, style.yellow(`  ${line}`));
  for (const line of taint.sources) writeLine(io.stdout, `    ${line}`);
  writeLine(io.stdout, style.bold("What a grant applies to (the digest binds all of it):"));
  out("tool", safeLine(binding.toolName));
  out("tool fingerprint", safeLine(binding.toolFingerprint));
  out("cwd (real path)", binding.cwd === undefined ? "(not recorded)" : safeLine(binding.cwd));
  out(
    "network",
    binding.network === undefined ? "(not recorded)" : safeLine(describeNetwork(binding.network)),
  );
  out("digest", `${safeLine(binding.actionDigest)}  ${describeVerification(binding)}`);
  writeLine(
    io.stdout,
    `  input, whole, as canonical JSON (RFC 8785)${binding.source === "run" ? ", from the run that asked" : ""}:`,
  );
  writeLine(
    io.stdout,
    `    ${binding.canonicalInput === undefined ? "(not recorded)" : safeText(binding.canonicalInput)}`,
  );
  const hints = Object.entries(record.unverifiedHints ?? {});
  if (hints.length > 0) {
    writeLine(io.stdout, style.yellow("  annotations declared by the server (unverified, not trusted):"));
    for (const [key, value] of hints)
      writeLine(io.stdout, `    ${safeLine(key)}: ${safeLine(JSON.stringify(value))}`);
  }
}

function describeStatus(record: ApprovalRecord): string {
  if (record.status === "voided")
    return `voided at ${record.voidedAt ?? "?"}: ${record.voidReason ?? "no reason"}`;
  if (record.status === "consumed")
    return `consumed at ${record.consumedAt ?? "?"} (decided ${record.decidedAt ?? "?"})`;
  if (record.status === "granted" || record.status === "denied")
    return `${record.status} at ${record.decidedAt ?? "?"}`;
  return record.status;
}

function describeVerification(binding: ApprovalBinding): string {
  if (binding.digestVerified === true) return "(verified: the fields shown hash to it)";
  if (binding.digestVerified === false)
    return "(MISMATCH: the fields shown do not hash to it; do not approve)";
  return "(cannot be verified: this request predates the stored input, cwd and network)";
}
