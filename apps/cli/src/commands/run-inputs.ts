import { serverToolName } from "@agent/mcp-client";
import {
  capToolOutput,
  digestJson,
  executeToolCall,
  type FlowSource,
  type JsonValue,
  type Observation,
  type ToolCallOutcome,
} from "@agent/tools";
import { EXIT_CODES, type ExitCode, usageError } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import { decideHeldCall, type HeldCallDeciding } from "../terminal/decide-held-call.js";
import { type CliIo, isInteractive, safeLine, styleFor, writeJson, writeLine } from "../terminal/io.js";
import type { RunDocument } from "./run-report.js";

/** What `agent run` starts from besides its own prompt: an MCP prompt and resources to attach. */
export interface RunInputs {
  prompt: string | undefined;
  /** `--prompt <server>:<name>`. */
  fromPrompt: string | undefined;
  /** `--arg k=v` of that prompt. */
  promptArgs: Record<string, string>;
  /** `--attach <server>:<uri>`, in order. */
  attach: string[];
}

/** What fetching a run's inputs needs: the tools, the gate and the workspace each fetch runs in, and the operator's prompt. */
export type RunInputsDeps = Pick<
  Runtime,
  "registry" | "gate" | "workspaceRealPath" | "config" | "events" | "flows"
> &
  HeldCallDeciding;

/**
 * The first message of an agent run: the MCP prompt's messages, then each attached resource (its
 * text capped as a tool result is), then the run's own prompt. Each fetch is a governed call of the
 * server's built-in tool (`get_prompt`, `read_resource`): validated, authorized, approved where the
 * policy asks (on a terminal at once), audited. A fetch that is held stops here with exit 3: it is
 * held under a run of its own whose id depends only on what it fetches, so once approved, running
 * the same command again uses that approval, once. A failed fetch exits 1. Nothing is sent to the
 * model until every fetch succeeded. What an untrusted server served is returned as the run's
 * starting taint (the flow guard).
 */
export async function composeRunPrompt(
  runtime: RunInputsDeps,
  io: CliIo,
  inputs: RunInputs,
  options: { json: boolean; signal: AbortSignal },
): Promise<{ ok: true; prompt: string; taint: FlowSource[] } | { ok: false; exitCode: ExitCode }> {
  const parts: string[] = [];
  const taint: FlowSource[] = [];
  // Labelled as the run's own calls are: an untrusted server's content, or a tainted file it served.
  const served = async (toolName: string, input: JsonValue): Promise<void> => {
    const tool = runtime.registry.get(toolName);
    taint.push(...(await runtime.flows.sourcesOfFetch({ toolName, tool, input })));
  };
  if (inputs.fromPrompt !== undefined) {
    const [server, name] = splitReference("--prompt", inputs.fromPrompt);
    const args = Object.keys(inputs.promptArgs).length === 0 ? {} : { arguments: inputs.promptArgs };
    const fetched = await governedFetch(
      runtime,
      io,
      serverToolName(server, "get_prompt"),
      { name, ...args },
      options,
    );
    if (!fetched.ok) return fetched;
    await served(serverToolName(server, "get_prompt"), { name, ...args });
    parts.push(promptText(fetched.observation));
  }
  for (const reference of inputs.attach) {
    const [server, uri] = splitReference("--attach", reference);
    const fetched = await governedFetch(
      runtime,
      io,
      serverToolName(server, "read_resource"),
      { uri },
      options,
    );
    if (!fetched.ok) return fetched;
    await served(serverToolName(server, "read_resource"), { uri });
    parts.push(
      `Attached resource ${uri} (from the MCP server "${server}"):\n${capToolOutput(fetched.observation).text}`,
    );
  }
  if (inputs.prompt !== undefined) parts.push(inputs.prompt);
  return { ok: true, prompt: parts.join("\n\n"), taint };
}

function splitReference(option: string, reference: string): [string, string] {
  const separator = reference.indexOf(":");
  if (separator <= 0 || separator === reference.length - 1) {
    throw usageError(
      `${option} takes <server>:<${option === "--prompt" ? "name" : "uri"}>, got ${JSON.stringify(reference)}.`,
    );
  }
  return [reference.slice(0, separator), reference.slice(separator + 1)];
}

type Fetched = { ok: true; observation: Observation & { ok: true } } | { ok: false; exitCode: ExitCode };

async function governedFetch(
  runtime: RunInputsDeps,
  io: CliIo,
  toolName: string,
  input: JsonValue,
  options: { json: boolean; signal: AbortSignal },
): Promise<Fetched> {
  const runId = `run_fetch_${digestJson({ toolName, input }).slice(-24)}`;
  const execute = (): Promise<ToolCallOutcome> =>
    executeToolCall(
      { name: toolName, input },
      {
        registry: runtime.registry,
        gate: runtime.gate,
        runId,
        cwd: runtime.workspaceRealPath,
        timeoutMs: runtime.config.toolTimeoutMs,
        signal: options.signal,
        events: runtime.events,
      },
    );
  let outcome = await execute();
  if (outcome.type === "waiting" && !options.json && isInteractive(io) && !options.signal.aborted) {
    const answer = await decideHeldCall(runtime, io, outcome.requestId, input, options.signal, {
      alwaysAllow: runtime,
    });
    if (answer === "approve" || answer === "always") outcome = await execute();
  }
  if (outcome.type === "waiting") {
    report(
      io,
      options.json,
      { type: "run", runId, status: "waiting", output: null, turns: 0, requestId: outcome.requestId },
      () => {
        const style = styleFor(io.stderr, io.env);
        const request = safeLine(outcome.type === "waiting" ? outcome.requestId : "");
        writeLine(
          io.stderr,
          style.yellow(`Reading ${safeLine(toolName)} is held for approval (request ${request}).`),
        );
        writeLine(io.stderr, `Approve it with: agent approvals approve ${request}`);
        writeLine(io.stderr, "then run the same agent run command again: it uses that approval once.");
      },
    );
    return { ok: false, exitCode: EXIT_CODES.waiting };
  }
  if (!outcome.ok) {
    const error = { code: outcome.error, message: outcome.message };
    report(io, options.json, { type: "run", runId, status: "failed", output: null, turns: 0, error }, () =>
      writeLine(
        io.stderr,
        `agent: ${safeLine(toolName)} failed: ${safeLine(`${error.code}: ${error.message}`)}`,
      ),
    );
    return { ok: false, exitCode: EXIT_CODES.failed };
  }
  return { ok: true, observation: outcome };
}

function report(io: CliIo, json: boolean, document: RunDocument, human: () => void): void {
  if (json) writeJson(io, document);
  else human();
}

/** A prompt's messages as the text of a first message: each text block, assistant turns marked. */
function promptText(observation: Observation & { ok: true }): string {
  const output = observation.output as { messages?: { role: string; content: Record<string, unknown> }[] };
  return (output.messages ?? [])
    .map((message) => {
      const { content } = message;
      const text =
        content.type === "text" && typeof content.text === "string"
          ? content.text
          : capToolOutput({ ...observation, output: { content: [content] } }).text;
      return message.role === "assistant" ? `[assistant] ${text}` : text;
    })
    .join("\n\n");
}
