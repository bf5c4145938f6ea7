import { randomUUID } from "node:crypto";
import {
  continueRun,
  isCallRun,
  LOOP_ERROR_CODES,
  LoopError,
  type RunResult,
  resumeRun,
  startRun,
  type UnknownOutcomeDecision,
} from "@agent/loop";
import { serverOfToolName } from "@agent/mcp-client";
import { CliExit, EXIT_CODES, type ExitCode } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import type { HeldCallDeciding } from "../terminal/decide-held-call.js";
import { agentCommand, type CliIo, styleFor, writeLine } from "../terminal/io.js";
import { describeUsage } from "../terminal/usage-line.js";
import { composeRunPrompt, type RunInputs, type RunInputsDeps } from "./run-inputs.js";
import { reportRun } from "./run-report.js";
import {
  type AgentSessionDeps,
  canTakeOver,
  openAgentSession,
  type SessionOptions,
  settleHeldCalls,
} from "./run-session.js";

/** What driving an agent run needs: its environment, and the operator's prompt for the calls it holds. */
export type AgentRunDeps = AgentSessionDeps & HeldCallDeciding;

/**
 * `agent run <prompt> [--json] [--max-turns N] [--prompt <server>:<name> [--arg k=v]...]
 * [--attach <server>:<uri>]...`: starts an agent run with the configured model and
 * drives it until it completes, waits for an approval, fails, reaches its turn limit or is interrupted.
 */
export async function runCommand(
  runtime: AgentRunDeps & RunInputsDeps,
  io: CliIo,
  options: { json: boolean; maxTurns: number | undefined } & RunInputs,
  signal: AbortSignal,
): Promise<ExitCode> {
  const sessionOptions: SessionOptions = { json: options.json, signal };
  const session = await openAgentSession(runtime, io, sessionOptions);
  // An MCP prompt and attached resources are fetched through the gate before the model hears anything.
  const first = await composeRunPrompt(runtime, io, options, sessionOptions);
  if (!first.ok) {
    session.display.finish();
    return first.exitCode;
  }
  // Chosen here, so that a failure before the run returns can still name it.
  const runId = `run_${randomUUID()}`;
  return drive(runtime, io, session, sessionOptions, runId, () =>
    startRun(session.env, {
      runId,
      prompt: first.prompt,
      taint: first.taint,
      maxTurns: options.maxTurns ?? session.maxTurns,
      ...(session.maxTokens === undefined ? {} : { maxTokens: session.maxTokens }),
      ...(session.system === undefined ? {} : { system: session.system }),
    }),
  );
}

/**
 * `agent run --continue <runId> <prompt> [--json] [--max-turns N]`: gives a stopped agent run (completed,
 * max turns, interrupted, failed) a new user message and drives it on, in the same run record: its
 * transcript, taint and approvals go on. A waiting run is refused (its held calls are decided and
 * it is resumed first), as is an id that names no agent run: exit 2, before any server starts.
 */
export async function continueRunCommand(
  runtime: AgentRunDeps,
  io: CliIo,
  options: { runId: string; prompt: string; json: boolean; maxTurns: number | undefined },
  signal: AbortSignal,
): Promise<ExitCode> {
  await assertContinuable(runtime, options.runId);
  const sessionOptions: SessionOptions = { json: options.json, signal };
  const session = await openAgentSession(runtime, io, sessionOptions);
  return drive(runtime, io, session, sessionOptions, options.runId, () =>
    continueRun(session.env, {
      runId: options.runId,
      prompt: options.prompt,
      maxTurns: options.maxTurns ?? session.maxTurns,
      ...(session.maxTokens === undefined ? {} : { maxTokens: session.maxTokens }),
    }),
  );
}

/** Refuses (exit 2) what `--continue` cannot go on with, saying what to do instead. */
async function assertContinuable(runtime: Pick<Runtime, "state">, runId: string): Promise<void> {
  const run = await runtime.state.runs.loadRun(runId);
  if (!run || isCallRun(run)) {
    throw new CliExit(
      EXIT_CODES.usage,
      run
        ? `Run "${runId}" is a one-call run ("agent call"); only an agent run takes a new prompt. Start one with: agent run <prompt>`
        : `No agent run "${runId}". "agent runs list" shows the runs.`,
    );
  }
  if (run.status === "waiting") {
    const approve = run.requestIds.map((id) => `agent approvals approve ${id}`).join(", ");
    throw new CliExit(
      EXIT_CODES.usage,
      `Run "${runId}" is waiting for approval of its held calls; a new prompt cannot go on from there. Decide them (${approve}, or deny), then "agent resume ${runId}"; once it has stopped, continue it.`,
    );
  }
}

/**
 * `agent resume <runId>` for an agent run: claims it and continues the loop where it stopped (held
 * calls re-checked through the gate, then the next model turn).
 */
export async function resumeAgentRunCommand(
  runtime: AgentRunDeps,
  io: CliIo,
  options: { runId: string; json: boolean; unknownOutcomes?: Record<string, UnknownOutcomeDecision> },
  signal: AbortSignal,
): Promise<ExitCode> {
  const sessionOptions: SessionOptions = { json: options.json, signal };
  const session = await openAgentSession(runtime, io, sessionOptions);
  await assertToolsPresent(runtime, options.runId);
  const decided = options.unknownOutcomes ?? {};
  return drive(runtime, io, session, sessionOptions, options.runId, () =>
    resumeRun(session.env, {
      runId: options.runId,
      canTakeOver,
      // The budget configured now applies from here on; the tokens already used still count.
      ...(session.maxTokens === undefined ? {} : { maxTokens: session.maxTokens }),
      ...(Object.keys(decided).length === 0 ? {} : { unknownOutcomes: decided }),
    }),
  );
}

/**
 * A run held on one machine may be resumed on another that shares the state: the calls it still has
 * to make name their tools, and a machine whose configuration lacks one refuses, saying which,
 * instead of answering the model that the tool does not exist.
 */
async function assertToolsPresent(
  runtime: Pick<Runtime, "state" | "registry">,
  runId: string,
): Promise<void> {
  const run = await runtime.state.runs.loadRun(runId);
  const missing = [
    ...new Set(
      (run?.pending ?? [])
        .filter((call) => call.status !== "done" && runtime.registry.get(call.toolName) === undefined)
        .map((call) => call.toolName),
    ),
  ];
  if (missing.length === 0) return;
  const servers = [
    ...new Set(missing.map((name) => serverOfToolName(name)).filter((name) => name !== undefined)),
  ];
  throw new CliExit(
    EXIT_CODES.usage,
    `run ${runId} still has to call ${missing.join(", ")}, which this machine does not provide${
      servers.length > 0 ? ` (MCP server ${servers.join(", ")} is not configured here or did not start)` : ""
    }; resume it where its configuration and servers are.`,
  );
}

async function drive(
  runtime: HeldCallDeciding,
  io: CliIo,
  session: Awaited<ReturnType<typeof openAgentSession>>,
  options: SessionOptions,
  runId: string,
  begin: () => Promise<RunResult>,
): Promise<ExitCode> {
  let result: RunResult;
  try {
    result = await settleHeldCalls(runtime, io, session, await begin(), options);
  } catch (error) {
    throw explainUnsavedRun(error, runId, agentCommand(io));
  } finally {
    session.display.finish();
  }
  // For the person at the terminal: what the run has used (all its turns), and its cost where priced.
  if (!options.json && io.stderr.isTTY) {
    writeLine(io.stderr, styleFor(io.stderr, io.env).dim(describeUsage(result.usage, session.prices)));
  }
  return reportRun(io, result, options);
}

/**
 * A run the state store failed under, with calls that ran: the loop's account of which calls may
 * have run, and what to do once the store is back; never "nothing was lost". Anything else as it is.
 */
function explainUnsavedRun(error: unknown, runId: string, agent: string): unknown {
  if (!LoopError.isInstance(error) || error.code !== LOOP_ERROR_CODES.runNotSaved) return error;
  return new CliExit(
    EXIT_CODES.failed,
    `${error.message} [${error.code}] Once the state store is back, "${agent} runs show ${runId}" says where it stands; a call marked outcome_unknown runs again only with "${agent} resume ${runId} --rerun <callId>", or "--answer-unknown <callId>" tells the model its outcome is unknown.`,
  );
}
