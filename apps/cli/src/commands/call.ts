import { exceedsJsonDepth, type JsonValue, MAX_INPUT_DEPTH } from "@agent/tools";
import { type ExitCode, usageError } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import type { CliIo } from "../terminal/io.js";
import { runGovernedCall } from "./governed-call.js";

/** `agent call <tool> [--input JSON]`: starts a run holding one call and runs it through the gate. */
export async function callCommand(
  runtime: Runtime,
  io: CliIo,
  options: { toolName: string; input: string | undefined; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  return startGovernedCall(
    runtime,
    io,
    { toolName: options.toolName, input: parseInput(options.input), json: options.json },
    signal,
  );
}

/** Starts a run holding one call of `toolName` with `input`, and runs it through the gate. */
export async function startGovernedCall(
  runtime: Runtime,
  io: CliIo,
  options: { toolName: string; input: JsonValue; json: boolean },
  signal: AbortSignal,
): Promise<ExitCode> {
  const { input } = options;
  // The workspace root's real path is the call's cwd: approvals bind to it, so re-pointing a
  // symbolic link at another root makes the same call a different action.
  const run = runtime.state.createRun({
    toolName: options.toolName,
    input,
    cwd: runtime.workspaceRealPath,
  });
  const call = { runId: run.id, callId: run.callId, toolName: run.toolName, input, cwd: run.cwd };
  return runGovernedCall(runtime, io, call, { json: options.json, signal });
}

function parseInput(text: string | undefined): JsonValue {
  if (text === undefined) return {};
  let input: JsonValue;
  try {
    input = JSON.parse(text) as JsonValue;
  } catch (error) {
    throw usageError(`--input is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  // Refused before anything recursive (the run record, the validator, the digest) sees it.
  if (exceedsJsonDepth(input))
    throw usageError(`--input is nested more than ${MAX_INPUT_DEPTH} levels deep.`);
  return input;
}
