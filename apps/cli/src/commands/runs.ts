import { isCallRun, type RunState } from "@agent/loop";
import type { ModelMessage } from "@agent/models";
import { CliExit, EXIT_CODES, type ExitCode } from "../exit-codes.js";
import type { StateRuntime } from "../runtime/state-runtime.js";
import { callRunView } from "../state/index.js";
import {
  agentCommand,
  type CliIo,
  safeLine,
  safeText,
  styleFor,
  writeJson,
  writeLine,
} from "../terminal/io.js";
import { formatTable, terminalWidth, truncate } from "../terminal/table.js";

/** One line of `agent runs list` (and of the console's runs page): an agent run (`agent run`) or a one-call run (`agent call`). */
export interface RunListing {
  runId: string;
  kind: "agent" | "call";
  status: string;
  createdAt: string;
  updatedAt: string;
  /** The prompt of an agent run, the tool of a one-call run. */
  what: string;
  turns?: number;
  requestIds: string[];
}

const SHOWN_CONTENT_CHARS = 500;

/** `agent runs list [--json]`: every run, newest first, agent runs and one-call runs alike. */
export async function runsListCommand(
  runtime: Pick<StateRuntime, "state">,
  io: CliIo,
  options: { json: boolean },
): Promise<ExitCode> {
  const runs = await listRunSummaries(runtime);
  if (options.json) {
    writeJson(io, { runs });
    return EXIT_CODES.ok;
  }
  if (runs.length === 0) {
    writeLine(io.stdout, "No runs.");
    return EXIT_CODES.ok;
  }
  const style = styleFor(io.stdout, io.env);
  // The state database is a file anyone with access may have edited: every cell is escaped.
  const rows = runs.map((run) => [
    safeLine(run.runId),
    safeLine(run.kind),
    run.status === "waiting" ? style.yellow(safeLine(run.status)) : safeLine(run.status),
    run.turns === undefined ? "" : String(run.turns),
    safeLine(run.createdAt),
    safeLine(truncate(run.what, 60)),
  ]);
  // Narrow terminals keep the id, kind, status and what it does; `runs show` has the rest.
  const fit = { width: terminalWidth(io.stdout, io.env), optional: [3, 4] };
  const header = ["RUN", "KIND", "STATUS", "TURNS", "CREATED", "PROMPT / TOOL"];
  for (const line of formatTable([header.map(style.dim), ...rows], fit)) {
    writeLine(io.stdout, line);
  }
  return EXIT_CODES.ok;
}

/** `agent runs show <runId> [--json]`: one run whole (JSON), or its transcript, cut for reading. */
export async function runsShowCommand(
  runtime: Pick<StateRuntime, "state">,
  io: CliIo,
  options: { runId: string; json: boolean },
): Promise<ExitCode> {
  const run = await runtime.state.runs.loadRun(options.runId);
  if (!run) {
    throw new CliExit(
      EXIT_CODES.usage,
      `No run "${options.runId}". "${agentCommand(io)} runs list" shows them.`,
    );
  }
  const callRun = isCallRun(run) ? callRunView(run) : undefined;
  if (options.json) {
    writeJson(io, callRun ? { kind: "call", run: callRun } : { kind: "agent", run });
    return EXIT_CODES.ok;
  }
  if (callRun) {
    writeLine(io.stdout, safeText(JSON.stringify(callRun, null, 2)));
    return EXIT_CODES.ok;
  }
  showAgentRun(io, run);
  return EXIT_CODES.ok;
}

function showAgentRun(io: CliIo, run: RunState): void {
  const style = styleFor(io.stdout, io.env);
  const facts = [
    ["run", run.runId],
    ["status", run.status],
    ["model", `${run.provider} ${run.model}`],
    ["turns", `${run.turns} of at most ${run.maxTurns}`],
    ["tokens", `${run.usage.inputTokens} in, ${run.usage.outputTokens} out`],
    ["created", run.createdAt],
    ["updated", run.updatedAt],
    ...(run.requestIds.length > 0 ? [["waiting for", run.requestIds.join(", ")]] : []),
    ...(run.error ? [["error", `${run.error.code}: ${run.error.message}`]] : []),
  ];
  for (const line of formatTable(facts.map(([key = "", value = ""]) => [style.dim(key), safeLine(value)]))) {
    writeLine(io.stdout, line);
  }
  writeLine(io.stdout);
  for (const message of run.messages) writeLine(io.stdout, describeMessage(message, style));
  for (const call of run.pending) {
    writeLine(
      io.stdout,
      style.yellow(
        safeLine(
          `pending ${call.toolName} ${cut(call.arguments)}: ${pendingState(run, call, agentCommand(io))}`,
        ),
      ),
    );
  }
}

function pendingState(run: RunState, call: RunState["pending"][number], agent: string): string {
  switch (call.status) {
    case "held":
      return `held (request ${call.requestId ?? "?"})`;
    case "outcome_unknown":
      return `outcome unknown: call ${call.callId} may have run, its outcome was not saved; decide with "${agent} resume ${run.runId} --rerun ${call.callId}" or "--answer-unknown ${call.callId}"`;
    default:
      return call.status;
  }
}

function describeMessage(message: ModelMessage, style: ReturnType<typeof styleFor>): string {
  switch (message.role) {
    case "user":
      return `${style.bold("user")}  ${safeText(message.content)}`;
    case "assistant": {
      const calls = message.toolCalls.map(
        (call) => `\n  → ${safeLine(`${call.name} ${cut(call.arguments)}`)}`,
      );
      return `${style.bold("assistant")}  ${safeText(message.content ?? "")}${calls.join("")}`;
    }
    case "tool": {
      const label = message.isError
        ? style.red(`tool ${safeLine(message.toolName)}`)
        : `tool ${safeLine(message.toolName)}`;
      return `${label}  ${safeText(cut(message.content))}`;
    }
  }
}

function cut(text: string): string {
  return text.length <= SHOWN_CONTENT_CHARS
    ? text
    : `${text.slice(0, SHOWN_CONTENT_CHARS)}… (${text.length} characters)`;
}

/** Every run, newest first, agent runs and one-call runs alike: what `agent runs list` lists. */
export async function listRunSummaries(runtime: Pick<StateRuntime, "state">): Promise<RunListing[]> {
  return (await runtime.state.runs.listRuns()).map((run): RunListing => {
    const { runId, status, createdAt, updatedAt } = run;
    if (!run.call) {
      const { prompt: what, turns, requestIds } = run;
      return { runId, kind: "agent", status, createdAt, updatedAt, what, turns, requestIds };
    }
    // A one-call run lists the request that held its call, also once it was answered.
    const { toolName: what, requestId } = run.call;
    const requestIds = requestId === undefined ? [] : [requestId];
    return { runId, kind: "call", status, createdAt, updatedAt, what, requestIds };
  });
}
