import type { RegisteredTool } from "@agent/tools";
import { EXIT_CODES, type ExitCode } from "../exit-codes.js";
import type { Runtime } from "../runtime/runtime.js";
import { type CliIo, safeText, writeJson, writeLine } from "../terminal/io.js";
import { describeServerFailure } from "../terminal/server-failure.js";

/**
 * `agent tools --format …`: every registered tool as a model API takes it (strict variant for
 * OpenAI), or our own form. A server that did not start is named on stderr and exits 1.
 */
export async function toolsCommand(
  runtime: Runtime,
  io: CliIo,
  options: { format: "openai" | "anthropic" | "json" },
  signal: AbortSignal,
): Promise<ExitCode> {
  await runtime.connect(undefined, signal);
  const tools = runtime.registry.list();
  const formatted =
    options.format === "openai"
      ? tools.map(toOpenAiTool)
      : options.format === "anthropic"
        ? tools.map(toAnthropicTool)
        : tools.map(toOwnForm);
  writeJson(io, formatted);
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
