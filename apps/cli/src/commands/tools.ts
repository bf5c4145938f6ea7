import { serverOfToolName } from "@agent/mcp-client";
import { isFlowSink, NO_ISOLATION, resolvePolicyDecision } from "@agent/policy";
import type { RegisteredTool, TrustLabel } from "@agent/tools";
import { EXIT_CODES, type ExitCode } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import { type CliIo, safeLine, safeText, styleFor, writeJson, writeLine } from "../terminal/io.js";
import { describeServerFailure } from "../terminal/server-failure.js";
import { formatTable, plural, terminalWidth, truncate } from "../terminal/table.js";
import { endIfInterrupted } from "./interrupted-listing.js";

/** What `agent tools` needs: every tool registered once the servers connect, and how the gate would place and decide it. */
export type ToolsListingDeps = Pick<
  Runtime,
  "connect" | "closeServers" | "connections" | "registry" | "policy" | "sandboxes" | "flows"
>;

/**
 * `agent tools`: a table of every registered tool with its effect and the policy's decision; with
 * `--format openai|anthropic`, the tools the policy does not deny as that model API takes them
 * (strict variant for OpenAI); with `--format json`, our own form of every tool, decision included.
 * A server that did not start is named on stderr and exits 1.
 */
export async function toolsCommand(
  runtime: ToolsListingDeps,
  io: CliIo,
  options: { format: "openai" | "anthropic" | "json" | "table" },
  signal: AbortSignal,
): Promise<ExitCode> {
  await runtime.connect(undefined, signal);
  const interrupted = await endIfInterrupted(runtime, io, signal);
  if (interrupted !== undefined) return interrupted;
  // As the gate decides now: in a chat, after an "always allow" reloaded it.
  const policy = runtime.policy();
  const decisionOf = (tool: RegisteredTool) =>
    resolvePolicyDecision(policy, { name: tool.name, effect: tool.effect }).decision;
  // What the gate decides for the tool in a run that took in untrusted content (the flow guard).
  const taintedDecisionOf = (tool: RegisteredTool) =>
    resolvePolicyDecision(policy, tool, { sink: isSinkHere(tool) }).decision;
  // Where the gate runs the tool's calls, as the gate itself places them.
  const isSinkHere = (tool: RegisteredTool): boolean => {
    const sandbox = runtime.sandboxes.sandboxFor(tool) ?? NO_ISOLATION;
    return isFlowSink(tool, { sandbox, network: sandbox.network ?? policy.network });
  };
  const trustOf = (tool: RegisteredTool): TrustLabel => {
    const server = serverOfToolName(tool.name);
    return server === undefined ? "trusted" : runtime.flows.trustOf(server);
  };
  const tools = runtime.registry.list();
  // A denied tool can never run: offering it to a model only invites calls that fail.
  const offered = tools.filter((tool) => decisionOf(tool) !== "deny");
  if (options.format === "table") printTable(io, tools, { decisionOf, taintedDecisionOf, trustOf });
  else if (options.format === "openai") writeJson(io, offered.map(toOpenAiTool));
  else if (options.format === "anthropic") writeJson(io, offered.map(toAnthropicTool));
  else
    writeJson(
      io,
      tools.map((tool) => ({
        ...(toOwnForm(tool) as object),
        policy: decisionOf(tool),
        policyWhenTainted: taintedDecisionOf(tool),
        trust: trustOf(tool),
      })),
    );
  // Scripts feed this to a model: a server whose tools are missing must not go unnoticed.
  const failed = runtime.connections.filter((connection) => connection.state !== "ready");
  for (const connection of failed) {
    writeLine(
      io.stderr,
      `agent: MCP server "${safeText(connection.name)}" is missing from the list (${describeServerFailure(connection)}).`,
    );
  }
  return failed.length === 0 ? EXIT_CODES.ok : EXIT_CODES.failed;
}

/** What the tools table shows of each tool besides its name, effect and description. */
interface ToolColumns {
  decisionOf: (tool: RegisteredTool) => string;
  taintedDecisionOf: (tool: RegisteredTool) => string;
  trustOf: (tool: RegisteredTool) => TrustLabel;
}

function printTable(io: CliIo, tools: RegisteredTool[], columns: ToolColumns): void {
  const style = styleFor(io.stdout, io.env);
  const width = terminalWidth(io.stdout, io.env);
  const rows = tools.map((tool) => [
    safeLine(tool.name),
    tool.effect,
    columns.trustOf(tool),
    columns.decisionOf(tool),
    columns.taintedDecisionOf(tool),
    safeLine(truncate(tool.description, width ?? 60)),
  ]);
  const header = ["TOOL", "EFFECT", "TRUST", "POLICY", "TAINTED", "DESCRIPTION"];
  for (const line of formatTable([header.map(style.dim), ...rows], {
    width,
  })) {
    writeLine(io.stdout, line);
  }
  writeLine(io.stdout, style.dim(plural(tools.length, "tool")));
}

/** The OpenAI function-tool form: the strict variant where the schema allows it, the original otherwise. */
export function toOpenAiTool(tool: RegisteredTool): unknown {
  const strict = tool.strictParameters;
  return {
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: strict.compatible ? strict.parameters : tool.parameters,
      strict: strict.compatible,
    },
  };
}

/** The Anthropic tool form. */
export function toAnthropicTool(tool: RegisteredTool): unknown {
  return { name: tool.name, description: tool.description, input_schema: tool.parameters };
}

/** Our own form: what the registry knows, including effect, group and fingerprint. */
export function toOwnForm(tool: RegisteredTool): unknown {
  return {
    name: tool.name,
    description: tool.description,
    effect: tool.effect,
    group: tool.group ?? null,
    parameters: tool.parameters,
    strict: tool.strictParameters.compatible
      ? true
      : { compatible: false, reason: tool.strictParameters.reason },
    annotations: tool.annotations ?? null,
    fingerprint: tool.fingerprint,
  };
}
