import { execFile, spawn } from "node:child_process";
import type {
  ApprovalPort,
  AuditPort,
  ConsoleApproval,
  ConsoleRecord,
  RunActionOutcome,
  RunPort,
  ServersPort,
} from "@agent/console";
import { isCallRun } from "@agent/loop";
import type { Redactor } from "@agent/mcp-transport";
import {
  type ApprovalRecord,
  denyApprovalRequest,
  grantApprovalRequest,
  POLICY_ERROR_CODES,
  PolicyError,
} from "@agent/policy";
import { type ApprovalDecidingState, assertMayGrant, type StateRuntime } from "../runtime/state-runtime.js";
import { callRunView, currentRunOwner, type RunOwner, StateError } from "../state/index.js";
import { bindingOf } from "./approvals-show.js";
import { readAuditEntries } from "./audit.js";
import { parseSince, parseTail } from "./audit-filter.js";
import { describeWinningDecision } from "./late-decision.js";
import { listRunSummaries } from "./runs.js";

/** How the console reaches this CLI again: the `agent` entry (for `resume` and `mcp list`) and its global options. */
export interface CliInvocation {
  /** Node, then the `agent` script. */
  command: string;
  script: string;
  /** `--config FILE --state-dir DIR`, so a spawned command opens the same state. */
  globalArgs: string[];
}

/** The audit lines the console shows of what is already written, when the filter sets no `tail`. */
const DEFAULT_AUDIT_TAIL = 200;

/** The console's approval port: the same records and decision code as `agent approvals`. */
export function createApprovalPort(runtime: ApprovalDecidingState, redact: Redactor): ApprovalPort {
  const entryOf = async (record: ApprovalRecord): Promise<ConsoleApproval> =>
    redactDeep({ approval: record, binding: await bindingOf(record, runtime) }, redact) as ConsoleApproval;
  return {
    async list() {
      const records = await runtime.state.approvals.listApprovals();
      const ordered = [
        ...records.filter((r) => r.status === "pending"),
        ...records.filter((r) => r.status !== "pending"),
      ];
      return Promise.all(ordered.map(entryOf));
    },
    async get(id) {
      const record = await runtime.state.approvals.getApproval(id);
      return record && entryOf(record);
    },
    async decide(id, decision, reason) {
      try {
        if (decision === "approve") assertMayGrant(runtime);
        const record =
          decision === "approve"
            ? await grantApprovalRequest(runtime.state.approvals, id, runtime.events)
            : await denyApprovalRequest(runtime.state.approvals, id, runtime.events, reasonOf(reason));
        return { ok: true, record: redactDeep(record, redact) as ConsoleRecord };
      } catch (error) {
        if (StateError.isInstance(error)) return { ok: false, code: "refused", message: error.message };
        if (!PolicyError.isInstance(error)) throw error;
        if (error.code === POLICY_ERROR_CODES.approvalNotFound)
          return { ok: false, code: "not_found", message: `No approval request "${id}".` };
        if (error.code !== POLICY_ERROR_CODES.approvalNotPending) throw error;
        // Exactly once: the store's atomic decision answered "not pending"; say who won.
        const record = await runtime.state.approvals.getApproval(id);
        return {
          ok: false,
          code: "already_decided",
          message: `Already ${describeWinningDecision(record)}.`,
          ...(record && { record: redactDeep(record, redact) as ConsoleRecord }),
        };
      }
    },
  };
}

/** The console's run port: runs as `agent runs` reads them; cancel by signalling the owner, resume by `agent resume`. */
export function createRunPort(
  runtime: Pick<StateRuntime, "state">,
  redact: Redactor,
  cli: CliInvocation,
): RunPort & { settled(): Promise<void> } {
  // The resumes this console started: `agent serve` waits for them before it exits.
  const resumes = new Set<Promise<void>>();
  // A one-call run is shown as `agent runs show` shows it.
  const load = async (runId: string) => {
    const run = await runtime.state.runs.loadRun(runId);
    return run && isCallRun(run) ? callRunView(run) : run;
  };
  return {
    list: async () =>
      redactDeep(await listRunSummaries(runtime), redact) as Awaited<ReturnType<RunPort["list"]>>,
    async get(runId) {
      const run = await load(runId);
      return run && (redactDeep(run, redact) as ConsoleRecord);
    },
    async cancel(runId) {
      const run = await load(runId);
      if (!run) return { ok: false, code: "not_found", message: `No run "${runId}".` };
      if (run.status !== "running")
        return { ok: false, code: "not_running", message: `Run "${runId}" is ${run.status}, not running.` };
      return signalOwner(run.owner as RunOwner | undefined, runId);
    },
    async resume(runId) {
      const run = await load(runId);
      if (!run) return { ok: false, code: "not_found", message: `No run "${runId}".` };
      if (run.status !== "waiting")
        return {
          ok: false,
          code: "not_waiting",
          message: `Run "${runId}" is ${run.status}; only a waiting run is resumed from the console.`,
        };
      // The same path as a shell's `agent resume`: a process of its own, which claims the run atomically.
      const child = spawn(cli.command, [cli.script, ...cli.globalArgs, "resume", runId], { stdio: "ignore" });
      const exited = new Promise<void>((resolve) => {
        child.once("error", () => resolve());
        child.once("close", () => resolve());
      });
      resumes.add(exited);
      void exited.then(() => resumes.delete(exited));
      return { ok: true, message: `agent resume ${runId} started (process ${child.pid ?? "?"}).` };
    },
    async settled() {
      await Promise.all(resumes);
    },
  };
}

// The running process stops as at Ctrl-C (SIGTERM: its loop saves the run `cancelled`). Only the
// owner's host can signal it; elsewhere the console says so rather than pretend.
function signalOwner(owner: RunOwner | undefined, runId: string): RunActionOutcome {
  const here = currentRunOwner();
  if (!owner || typeof owner.pid !== "number" || !Number.isSafeInteger(owner.pid) || owner.pid <= 0)
    return { ok: false, code: "owner_unknown", message: `Run "${runId}" records no process to stop.` };
  if (owner.host !== here.host)
    return {
      ok: false,
      code: "other_host",
      message: `Run "${runId}" runs on ${owner.host}; cancel it from a console or shell there.`,
    };
  if (owner.pid === here.pid)
    return { ok: false, code: "owner_unknown", message: "The console does not run agent runs itself." };
  try {
    process.kill(owner.pid, "SIGTERM");
    return { ok: true, message: `Asked process ${owner.pid} to stop run ${runId}.` };
  } catch (error) {
    return {
      ok: false,
      code: "owner_gone",
      message: `Process ${owner.pid} could not be signalled (${(error as NodeJS.ErrnoException).code ?? "error"}); "agent resume ${runId}" takes over a run whose process is gone.`,
    };
  }
}

/** The console's audit port: the trail and filters of `agent audit`. */
export function createAuditPort(runtime: Pick<StateRuntime, "auditSource">, redact: Redactor): AuditPort {
  return {
    parseFilter(query) {
      try {
        // Checked now, as `agent audit` checks its flags: a bad filter is an answer, not a broken stream.
        parseSince(query.get("since") || undefined);
        return {
          ...(query.get("run") && { run: query.get("run") as string }),
          ...(query.get("tool") && { tool: query.get("tool") as string }),
          ...(query.get("since") && { since: query.get("since") as string }),
          tail: parseTail(query.get("tail") || undefined) ?? DEFAULT_AUDIT_TAIL,
        };
      } catch (error) {
        return (error as Error).message;
      }
    },
    async *read(filter, options) {
      const entries = await readAuditEntries(
        runtime.auditSource,
        { runId: filter.run, tool: filter.tool, since: parseSince(filter.since), tail: filter.tail },
        options,
      );
      for await (const entry of entries)
        if (entry.type === "record") yield redactDeep(entry.record, redact) as ConsoleRecord;
    },
  };
}

/** The console's servers port: what `agent mcp list --json` computes, asked of the CLI itself. */
export function createServersPort(cli: CliInvocation): ServersPort {
  return {
    list: (signal) =>
      new Promise((resolve, reject) => {
        execFile(
          cli.command,
          [cli.script, ...cli.globalArgs, "mcp", "list", "--json"],
          { signal, maxBuffer: 16 * 1024 * 1024 },
          (error, stdout) => {
            // `mcp list` exits 1 when a server failed; its JSON still says which and why.
            let parsed: { servers?: Array<Record<string, unknown>> };
            try {
              parsed = JSON.parse(stdout) as typeof parsed;
            } catch {
              return reject(error ?? new Error("agent mcp list --json printed no JSON"));
            }
            resolve((parsed.servers ?? []).map(serverStatus));
          },
        );
      }),
  };
}

function serverStatus(server: Record<string, unknown>): Awaited<ReturnType<ServersPort["list"]>>[number] {
  const auth = server.auth as { state?: string } | string | null;
  const tools = Array.isArray(server.tools) ? (server.tools as Array<Record<string, unknown>>) : [];
  return {
    name: String(server.name),
    state: server.status === "ready" ? "ready" : `failed: ${JSON.stringify(server.error)}`,
    isolation: String(server.isolation),
    ...(typeof server.protocolVersion === "string" && { protocolVersion: server.protocolVersion }),
    auth:
      auth === null
        ? "none (stdio or no OAuth)"
        : typeof auth === "string"
          ? auth
          : String(auth.state ?? JSON.stringify(auth)),
    tools: tools.map((tool) => ({
      name: String(tool.name),
      description: String(tool.description ?? ""),
      decision: String(tool.decision ?? tool.policy ?? "?"),
    })),
  };
}

// Stored inputs and results may hold a configured secret a tool was called with: never shown.
function redactDeep(value: unknown, redact: Redactor): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, redact));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDeep(item, redact)]));
  return value;
}

function reasonOf(reason: string | undefined): { reason?: string } {
  return reason === undefined ? {} : { reason };
}
