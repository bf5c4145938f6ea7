import { startCallRun } from "@agent/loop";
import type { JsonValue } from "@agent/tools";
import type { ExitCode } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import { currentRunOwner } from "../state/index.js";
import type { CliIo } from "../terminal/io.js";
import { readCallInput } from "./call-input.js";
import { type GovernedCallDeps, runGovernedCall } from "./governed-call.js";

/** What starting a one-call run needs: a governed call, and the workspace it runs in (its cwd). */
export type CallDeps = GovernedCallDeps & Pick<Runtime, "workspaceRealPath">;

/** `agent call <tool> [--input JSON|-|@FILE]`: starts a run holding one call and runs it through the gate. */
export async function callCommand(
  runtime: CallDeps,
  io: CliIo,
  options: { toolName: string; input: string | undefined; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  return startGovernedCall(
    runtime,
    io,
    { toolName: options.toolName, input: await readCallInput(options.input, io), json: options.json },
    signal,
  );
}

/** Starts a run holding one call of `toolName` with `input`, and runs it through the gate. */
export async function startGovernedCall(
  runtime: CallDeps,
  io: CliIo,
  options: { toolName: string; input: JsonValue; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  // The workspace root's real path is the call's cwd: approvals bind to it, so re-pointing a
  // symbolic link at another root makes the same call a different action.
  const run = await startCallRun(runtime.state.runs, {
    toolName: options.toolName,
    input: options.input,
    cwd: runtime.workspaceRealPath,
    owner: currentRunOwner(),
  });
  return runGovernedCall(runtime, io, run, { json: options.json, signal });
}
