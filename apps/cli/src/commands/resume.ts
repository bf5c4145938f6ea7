import { claimCallRun, isCallRun, type RunState, type UnknownOutcomeDecision } from "@agent/loop";
import { CliExit, EXIT_CODES, type ExitCode } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import { currentRunOwner, isRunOwnerGone, type RunOwner, runOwnerOf } from "../state/index.js";
import { agentCommand, type CliIo, safeText, writeLine } from "../terminal/io.js";
import { type GovernedCallDeps, runGovernedCall } from "./governed-call.js";
import { type AgentRunDeps, resumeAgentRunCommand } from "./run.js";
import { canTakeOver } from "./run-session.js";

/** What resuming needs: an agent run's loop, or a one-call run's governed call in the workspace it runs in now. */
export type ResumeDeps = AgentRunDeps & GovernedCallDeps & Pick<Runtime, "workspaceRealPath">;

/**
 * `agent resume <runId>`: an agent run continues its loop (see `resumeAgentRunCommand`); a one-call run replays the run's call through the gate, exactly as recorded (tool, input,
 * cwd). It resumes a `waiting` run, retries a `failed` or `cancelled` one, and takes over a `running`
 * one whose process is gone; a `completed` run is refused, so nothing runs twice by accident. The
 * gate re-checks every replay: an approval applies only if the tool's definition and the input are
 * unchanged, and a grant consumed by an earlier attempt is never reused (the call is held again).
 */
export async function resumeCommand(
  runtime: ResumeDeps,
  io: CliIo,
  options: { runId: string; json: boolean; unknownOutcomes: Record<string, UnknownOutcomeDecision> },
  signal: AbortSignal,
): Promise<ExitCode> {
  const run = await runtime.state.runs.loadRun(options.runId);
  if (!run)
    throw new CliExit(
      EXIT_CODES.usage,
      `No run "${options.runId}". "${agentCommand(io)} approvals list" shows the runs waiting.`,
    );
  if (!isCallRun(run)) return resumeAgentRunCommand(runtime, io, options, signal);
  if (Object.keys(options.unknownOutcomes).length > 0) {
    throw new CliExit(
      EXIT_CODES.usage,
      `Run "${run.runId}" is a one-call run; --rerun and --answer-unknown decide about calls of an agent run whose outcome is unknown.`,
    );
  }
  const owner = assertResumable(run);
  // Claim the run (compare-and-set on its version), so two resumes never run it side by side.
  const claimed = await claimCallRun(runtime.state.runs, run, { owner: currentRunOwner(), canTakeOver });
  if (!claimed) {
    throw new CliExit(
      EXIT_CODES.usage,
      `Run "${run.runId}" was claimed by another process just now; nothing was run here.`,
    );
  }
  if (owner) {
    writeLine(
      io.stderr,
      safeText(`agent: taking over run ${run.runId}: its process ${owner.pid} on this host is gone.`),
    );
  }
  // The cwd is where the workspace root leads now: if it was re-pointed since the call was held,
  // the digest differs and the call is held again instead of running somewhere else.
  const cwd = runtime.workspaceRealPath;
  if (cwd !== run.cwd) {
    writeLine(
      io.stderr,
      safeText(`agent: the workspace root now resolves to ${cwd} (the run was recorded in ${run.cwd}).`),
    );
  }
  return runGovernedCall(runtime, io, claimed, { json: options.json, signal, cwd });
}

/**
 * Refuses (exit 2) a run that must not be replayed now, saying why and what to do instead; returns
 * the owner whose run it takes over (a `running` run whose process is gone), if so.
 */
function assertResumable(run: RunState): RunOwner | undefined {
  if (run.status === "completed") {
    throw new CliExit(
      EXIT_CODES.usage,
      `Run "${run.runId}" already completed; its outcome is kept. Start a new call to run it again.`,
    );
  }
  if (run.status !== "running") return undefined;
  const owner = runOwnerOf(run.owner);
  if (!owner) {
    // Recorded by an agent before owners were; nobody can tell whether its process still runs it.
    throw new CliExit(
      EXIT_CODES.usage,
      `Run "${run.runId}" is marked running by an earlier agent version that did not record its process, so it cannot be taken over safely. Start a new call to run it again.`,
    );
  }
  const here = currentRunOwner();
  if (isRunOwnerGone(owner, here)) return owner;
  // Only the owner's host can tell whether its process is gone.
  const where = owner.host === here.host ? "" : " (only that host can take it over once it is gone)";
  throw new CliExit(
    EXIT_CODES.usage,
    `Run "${run.runId}" is running in process ${owner.pid} on ${owner.host}${where}; try again when it ends.`,
  );
}
