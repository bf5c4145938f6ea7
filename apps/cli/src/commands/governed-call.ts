import { messageOf } from "@agent/base";
import { callOfCallRun, type RunState } from "@agent/loop";
import { serverOfToolName } from "@agent/mcp-client";
import { executeToolCall, type ToolCallOutcome, type WaitingOutcome } from "@agent/tools";
import { EXIT_CODES, type ExitCode, interruptionExitCode } from "../exit-codes.js";
import { type CappedOutcome, capOutcome, placeholderOutcome } from "../runtime/output-cap.js";
import type { Runtime } from "../runtime/runtime.js";
import { type ServerFailureSources, serverFailureDetails } from "../runtime/server-failure-details.js";
import { decideHeldCall, type HeldCallDeciding } from "../terminal/decide-held-call.js";
import { type CliIo, isInteractive, safeLine, safeText, writeLine } from "../terminal/io.js";
import { nearestNames } from "../terminal/nearest-names.js";
import { renderOutcome, renderProgress } from "../terminal/render-outcome.js";
import { describeServerFailure, failureDetailLines } from "../terminal/server-failure.js";
import { type RunCall, type RunRecordingRuntime, recordRun } from "./record-run.js";

export type { RunCall } from "./record-run.js";

/**
 * What one governed call needs: its server's connection, the tools and the gate, the run store, the
 * cap on what it shows, and the operator's prompt.
 */
export type GovernedCallDeps = Pick<
  Runtime,
  "connect" | "voidStaleApprovals" | "registry" | "gate" | "events" | "stateDir" | "redactor"
> &
  RunRecordingRuntime &
  HeldCallDeciding &
  ServerFailureSources;

/**
 * Runs the call of a one-call run through the one gate and records the run (`cwd`: where it runs
 * now, when that differs from where it was recorded): connects only the server that owns the
 * tool, executes, and on a terminal asks to approve a held call (then re-checks it, consuming the
 * fresh grant once). Prints the outcome and returns the exit code. Whatever happens (an error, a
 * Ctrl-C at the prompt), the run is left in a state `resume` can pick up.
 */
export async function runGovernedCall(
  runtime: GovernedCallDeps,
  io: CliIo,
  run: RunState,
  options: { json: boolean; signal: AbortSignal; cwd?: string },
): Promise<ExitCode> {
  const call: RunCall = { ...callOfCallRun(run), ...(options.cwd !== undefined && { cwd: options.cwd }) };
  let outcome: ToolCallOutcome | undefined;
  try {
    const server = serverOfToolName(call.toolName);
    // Connects nothing for a local tool, but settles the sandbox first.
    await runtime.connect(server ? [server] : [], options.signal);
    if (server) explainUnavailableServer(runtime, io, server);
    outcome = await execute(runtime, io, call, options.signal);
    if (outcome.type === "waiting" && !options.json && isInteractive(io) && !options.signal.aborted) {
      outcome = await askOperator(runtime, io, call, outcome, options.signal);
    }
  } catch (error) {
    await recordRun(runtime, run, { outcome: undefined }, options.signal);
    throw error;
  }
  // Redacted and capped once: the terminal, --json and the run record all get the same outcome.
  let capped: CappedOutcome;
  try {
    capped = capOutcome(outcome, {
      maxChars: runtime.config.toolOutputMaxChars,
      stateDir: runtime.stateDir,
      redactor: runtime.redactor,
    });
  } catch (error) {
    // The call ran: its run is recorded with its real status, whatever its result turned out to be.
    const reason = `the result could not be shown or kept: ${messageOf(error)}`;
    capped = { outcome: placeholderOutcome(outcome, reason), warning: reason };
  }
  await recordRun(runtime, run, capped, options.signal);
  if (capped.warning) writeLine(io.stderr, `warning: ${safeText(capped.warning)}`);
  renderOutcome(io, call.runId, capped.outcome, options.json);
  if (
    capped.outcome.type === "observation" &&
    !capped.outcome.ok &&
    capped.outcome.error === "unknown_tool"
  ) {
    suggestToolNames(runtime, io, call.toolName);
  }
  if (capped.truncated?.file && !options.json) {
    writeLine(io.stderr, `agent: the whole output is in ${safeText(capped.truncated.file)}`);
  }
  if (options.signal.aborted) return interruptionExitCode(options.signal.reason);
  if (outcome.type === "waiting") return EXIT_CODES.waiting;
  return outcome.ok ? EXIT_CODES.ok : EXIT_CODES.failed;
}

/**
 * Shows the held call, records the operator's answer, and re-checks the call against it (after
 * "always allow", against the reloaded policy: the call still passes the gate).
 */
async function askOperator(
  runtime: GovernedCallDeps,
  io: CliIo,
  call: RunCall,
  held: WaitingOutcome,
  signal: AbortSignal,
): Promise<ToolCallOutcome> {
  const answer = await decideHeldCall(runtime, io, held.requestId, call.input, signal, {
    alwaysAllow: runtime,
  });
  // Ctrl-C at the prompt: the call stays held, to be approved and resumed later.
  if (answer === "interrupted" || answer === "missing") return held;
  return execute(runtime, io, call, signal);
}

/** The call will answer unknown_tool when its server did not start; say why on stderr. */
function explainUnavailableServer(runtime: ServerFailureSources, io: CliIo, server: string): void {
  const connection = runtime.connections.find((candidate) => candidate.name === server);
  if (!connection) {
    const near = nearestNames(
      server,
      runtime.connections.map((candidate) => candidate.name),
    );
    const hint = near.length
      ? ` Did you mean ${near.map((name) => `"${safeLine(name)}"`).join(" or ")}?`
      : "";
    writeLine(io.stderr, `agent: no enabled MCP server named "${safeLine(server)}" is configured.${hint}`);
  } else if (connection.state !== "ready") {
    writeLine(
      io.stderr,
      `agent: MCP server "${safeText(server)}" is not available (${describeServerFailure(connection)}).`,
    );
    for (const line of failureDetailLines(serverFailureDetails(runtime, server)))
      writeLine(io.stderr, `  ${line}`);
  }
}

/** After unknown_tool: the registered names closest to the one asked for, on stderr. */
function suggestToolNames(runtime: Pick<Runtime, "registry">, io: CliIo, toolName: string): void {
  const near = nearestNames(toolName, runtime.registry.names());
  if (near.length === 0) return;
  writeLine(io.stderr, `Did you mean: ${near.map(safeLine).join(", ")}?`);
}

async function execute(
  runtime: Pick<Runtime, "voidStaleApprovals" | "registry" | "gate" | "config" | "events">,
  io: CliIo,
  call: RunCall,
  signal: AbortSignal,
): Promise<ToolCallOutcome> {
  // Right before the gate looks for a grant: one given for a definition that has changed since
  // (here, or in a rediscovery during this command) is voided, never used.
  await runtime.voidStaleApprovals();
  return executeToolCall(
    { name: call.toolName, input: call.input, callId: call.callId },
    {
      registry: runtime.registry,
      gate: runtime.gate,
      runId: call.runId,
      cwd: call.cwd,
      timeoutMs: runtime.config.toolTimeoutMs,
      signal,
      events: runtime.events,
      onProgress: (progress) => renderProgress(io, progress, call.toolName),
    },
  );
}
