import { type AgentEnvironment, type RunResult, resumeRun } from "@agent/loop";
import { redactJson } from "@agent/mcp-transport";
import { fanOutEvents, type JsonValue, type Observation } from "@agent/tools";
import type { ModelPrices } from "../config/model-config.js";
import { createConfiguredModel, requireModelConfig } from "../runtime/configured-model.js";
import { createOfferedByPolicy } from "../runtime/offered-by-policy.js";
import type { Runtime } from "../runtime/runtime.js";
import { type ServerFailureSources, serverFailureDetails } from "../runtime/server-failure-details.js";
import { currentRunOwner, isRunOwnerGone, runOwnerOf } from "../state/index.js";
import { decideHeldCall, type HeldCallDeciding } from "../terminal/decide-held-call.js";
import { type CliIo, isInteractive, safeText, writeLine } from "../terminal/io.js";
import { createRunDisplay, type RunDisplay, SILENT_RUN_DISPLAY } from "../terminal/run-display.js";
import { describeServerFailure, failureDetailLines } from "../terminal/server-failure.js";

/** How an agent run is shown: `--json` prints only the final document. */
export interface SessionOptions {
  json: boolean;
  signal: AbortSignal;
}

/**
 * What an agent run's environment is built from: the servers (connected), the tools and the gate,
 * the run store and audit trail, the workspace, the redactor and the flow guard's labels.
 */
export type AgentSessionDeps = Pick<
  Runtime,
  "connect" | "registry" | "gate" | "policy" | "state" | "events" | "workspaceRealPath" | "redactor" | "flows"
> &
  ServerFailureSources;

/** An agent run's environment in the CLI, and the display it reports to. */
export interface AgentSession {
  env: AgentEnvironment;
  display: RunDisplay;
  /** The system prompt, turn limit and token budget the configuration sets. */
  system: string | undefined;
  maxTurns: number;
  maxTokens: number | undefined;
  /** The model's prices, when the configuration gives them: a cost is shown only then. */
  prices: ModelPrices | undefined;
}

/**
 * Prepares an agent run: reads the model's key (exit 2 naming the variable when it is missing),
 * connects every enabled server once, concurrently (a server that fails is reported and its tools
 * are left out; the run goes on), and builds the loop's environment on the CLI's registry, gate,
 * SQLite run store and audit trail. The servers stay connected until the runtime closes.
 */
export async function openAgentSession(
  runtime: AgentSessionDeps,
  io: CliIo,
  options: SessionOptions,
): Promise<AgentSession> {
  const modelConfig = requireModelConfig(runtime.config);
  const model = createConfiguredModel(modelConfig, io);
  await runtime.connect(undefined, options.signal);
  reportUnavailableServers(runtime, io);
  const display = options.json ? SILENT_RUN_DISPLAY : createRunDisplay(io, { prices: modelConfig.prices });
  const env: AgentEnvironment = {
    model,
    tools: runtime.registry,
    gate: runtime.gate,
    store: runtime.state.runs,
    // The real path, as every other call binds it: re-pointing a symlinked root holds calls again.
    cwd: runtime.workspaceRealPath,
    // The policy of the moment (a chat reloads it): the model is offered what the gate would not deny.
    isOffered: createOfferedByPolicy(() => runtime.policy()),
    toolTimeoutMs: runtime.config.toolTimeoutMs,
    // Unset: the loop's defaults (32 calls a turn, 100,000 characters of arguments a call).
    ...(modelConfig.maxCallsPerTurn === undefined ? {} : { maxCallsPerTurn: modelConfig.maxCallsPerTurn }),
    ...(modelConfig.maxArgumentChars === undefined ? {} : { maxArgumentChars: modelConfig.maxArgumentChars }),
    events: fanOutEvents(runtime.events, display.events),
    signal: options.signal,
    owner: currentRunOwner(),
    // What a local tool read (a .env file) may hold a configured secret: neither the model nor the
    // run's record gets it. MCP results are redacted at their transport already.
    filterObservation: (observation) => redactJson(observation, runtime.redactor) as Observation,
    // What each call brings into the run, by its server's trust and the files tainted runs wrote.
    flow: runtime.flows.trackRun(),
    ...display.hooks,
  };
  return {
    env,
    display,
    system: modelConfig.system,
    maxTurns: modelConfig.maxTurns,
    maxTokens: modelConfig.maxTokens,
    prices: modelConfig.prices,
  };
}

/**
 * On a terminal (and without `--json`), asks about each held call of a waiting run, records the
 * answers, and resumes the run in this process, until it stops for another reason or the person
 * interrupts. Elsewhere the waiting result is returned as it is.
 */
export async function settleHeldCalls(
  runtime: HeldCallDeciding,
  io: CliIo,
  session: AgentSession,
  first: RunResult,
  options: SessionOptions,
): Promise<RunResult> {
  let result = first;
  while (result.status === "waiting" && !options.json && isInteractive(io) && !options.signal.aborted) {
    session.display.finish();
    for (const requestId of result.requestIds) {
      const held = result.state.pending.find((call) => call.requestId === requestId);
      const answer = await decideHeldCall(
        runtime,
        io,
        requestId,
        parseArguments(held?.arguments),
        options.signal,
        { alwaysAllow: runtime },
      );
      if (answer === "interrupted") return result;
    }
    result = await resumeRun(session.env, { runId: result.runId, canTakeOver: canTakeOver });
  }
  return result;
}

/** Whether a `running` run's process is known to be gone (on this host, no such pid). */
export function canTakeOver(state: { owner: JsonValue }): boolean {
  const owner = runOwnerOf(state.owner);
  return owner !== undefined && isRunOwnerGone(owner);
}

function parseArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function reportUnavailableServers(runtime: ServerFailureSources, io: CliIo): void {
  for (const connection of runtime.connections) {
    if (connection.state === "ready") continue;
    writeLine(
      io.stderr,
      `agent: MCP server "${safeText(connection.name)}" is not available (${describeServerFailure(connection)}); the run goes on without its tools.`,
    );
    for (const line of failureDetailLines(serverFailureDetails(runtime, connection.name))) {
      writeLine(io.stderr, `  ${line}`);
    }
  }
}
