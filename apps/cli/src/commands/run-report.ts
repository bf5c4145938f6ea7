import { RUN_ERROR_CODES, type RunResult } from "@agent/loop";
import { EXIT_CODES, type ExitCode, interruptionExitCode } from "../exit-codes.js";
import { type CliIo, safeLine, safeText, styleFor, writeJson, writeLine } from "../terminal/io.js";

/**
 * The one document `agent run --json` and `agent resume --json` print for an agent run: a stable
 * contract scripts rely on.
 */
export interface RunDocument {
  type: "run";
  runId: string;
  status: RunResult["status"];
  output: string | null;
  turns: number;
  requestId?: string;
  error?: { code: string; message: string };
  /**
   * Calls that may have run but whose outcome was not saved (the run stopped `failed` with
   * `call_outcome_unknown`): each waits for `agent resume --rerun` or `--answer-unknown`.
   */
  outcomeUnknown?: { callId: string; toolName: string }[];
}

/** The {@link RunDocument} of a result. */
export function runDocument(result: RunResult): RunDocument {
  const document: RunDocument = {
    type: "run",
    runId: result.runId,
    status: result.status,
    output: result.output,
    turns: result.turns,
  };
  const [requestId] = result.requestIds;
  if (result.status === "waiting" && requestId !== undefined) document.requestId = requestId;
  if (result.error) document.error = { code: result.error.code, message: result.error.message };
  const unknown = unknownCalls(result);
  if (unknown.length > 0) document.outcomeUnknown = unknown;
  return document;
}

function unknownCalls(result: RunResult): { callId: string; toolName: string }[] {
  return result.state.pending
    .filter((call) => call.status === "outcome_unknown")
    .map((call) => ({ callId: call.callId, toolName: call.toolName }));
}

/**
 * Prints how the run stopped (the JSON document, or a few lines on stderr saying what to do next)
 * and returns the exit code: 0 completed, 1 failed or max turns, 3 waiting, 130/143 interrupted.
 */
export function reportRun(
  io: CliIo,
  result: RunResult,
  options: { json: boolean; signal: AbortSignal },
): ExitCode {
  if (options.json) writeJson(io, runDocument(result));
  else describeStop(io, result);
  if (options.signal.aborted) return interruptionExitCode(options.signal.reason);
  switch (result.status) {
    case "completed":
      return EXIT_CODES.ok;
    case "waiting":
      return EXIT_CODES.waiting;
    case "cancelled":
      return EXIT_CODES.interrupted;
    default:
      return EXIT_CODES.failed;
  }
}

function describeStop(io: CliIo, result: RunResult): void {
  const style = styleFor(io.stderr, io.env);
  const run = safeLine(result.runId);
  switch (result.status) {
    case "completed":
      return;
    case "waiting":
      writeLine(io.stderr, style.yellow(`Run ${run} is waiting for approval.`));
      for (const requestId of result.requestIds) {
        writeLine(io.stderr, `Approve it with:     agent approvals approve ${safeLine(requestId)}`);
      }
      writeLine(io.stderr, `then continue with:  agent resume ${run}`);
      return;
    case "max_turns":
      writeLine(
        io.stderr,
        style.yellow(
          `Run ${run} stopped after ${result.turns} turns (the limit; raise it with --max-turns). Go on with: agent run --continue ${run} <prompt>`,
        ),
      );
      return;
    case "cancelled":
      writeLine(io.stderr, `Run ${run} was interrupted; continue it with: agent resume ${run}`);
      return;
    case "failed":
      writeLine(
        io.stderr,
        `${style.red(`error: ${safeText(result.error?.code ?? "failed")}`)}: ${safeText(result.error?.message ?? "")}`,
      );
      if (result.error?.code === RUN_ERROR_CODES.callOutcomeUnknown) {
        describeUnknown(io, result);
        return;
      }
      writeLine(
        io.stderr,
        result.error?.code === RUN_ERROR_CODES.tokenBudgetExceeded
          ? `Run ${run} used up its token budget; raise "model.maxTokens" and continue it with: agent resume ${run}`
          : `Run ${run} failed; once the cause is fixed, continue it with: agent resume ${run}`,
      );
      return;
  }
}

/** The calls that may have run unrecorded, and the two decisions an operator can make about each. */
function describeUnknown(io: CliIo, result: RunResult): void {
  const run = safeLine(result.runId);
  for (const call of unknownCalls(result)) {
    const id = safeLine(call.callId);
    writeLine(io.stderr, `Call ${id} (${safeLine(call.toolName)}) may have run; its outcome was not saved.`);
    writeLine(io.stderr, `Check its effect, then either run it again:  agent resume ${run} --rerun ${id}`);
    writeLine(
      io.stderr,
      `or tell the model its outcome is unknown:    agent resume ${run} --answer-unknown ${id}`,
    );
  }
}
