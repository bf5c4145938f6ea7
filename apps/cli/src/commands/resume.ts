import { CliExit, EXIT_CODES, type ExitCode } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import type { CliIo } from "../terminal/io.js";
import { runGovernedCall } from "./governed-call.js";

/**
 * `agent resume <runId>`: replays the run's call through the gate, exactly as recorded (tool, input,
 * cwd). An approval applies only if the tool's definition and the input are unchanged, and it is
 * consumed by one execution: resuming again holds the call again.
 */
export async function resumeCommand(
  runtime: Runtime,
  io: CliIo,
  options: { runId: string; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  const run = runtime.state.getRun(options.runId);
  if (!run)
    throw new CliExit(
      EXIT_CODES.usage,
      `No run "${options.runId}". "agent approvals list" shows the runs waiting.`,
    );
  if (run.status === "running") {
    throw new CliExit(
      EXIT_CODES.failed,
      `Run "${run.id}" is running in another process; try again when it ends.`,
    );
  }
  // Claim the run, so two resumes never run it side by side (the grant is consumed once regardless).
  const claimed = runtime.state.transitionRun(run.id, run.status, { status: "running" });
  if (!claimed)
    throw new CliExit(EXIT_CODES.failed, `Run "${run.id}" was claimed by another process just now.`);
  const call = { runId: run.id, callId: run.callId, toolName: run.toolName, input: run.input, cwd: run.cwd };
  return runGovernedCall(runtime, io, call, { json: options.json, signal });
}
