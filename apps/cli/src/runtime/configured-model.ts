// The model of the configuration and what runs on it: the client of agent runs, and the sampling
// requests of servers, each a governed call on that model.

import { messageOf } from "@agent/base";
import type { SamplingAnswer, SamplingHandler } from "@agent/mcp-client";
import { createAnthropicModel, createOpenAiModel, type ModelClient } from "@agent/models";
import {
  defineTool,
  type EventSink,
  executeToolCall,
  type JsonValue,
  type ToolGate,
  ToolRegistry,
  type WaitingOutcome,
} from "@agent/tools";
import { z } from "zod";
import type { AgentConfig } from "../config/index.js";
import { type ModelConfig, readApiKey } from "../config/model-config.js";
import { CliExit, EXIT_CODES } from "../exit-codes.js";
import { decideHeldCall } from "../terminal/decide-held-call.js";
import { type CliIo, isInteractive, safeLine, safeText, writeLine } from "../terminal/io.js";
import type { ApprovalDecidingState } from "./state-runtime.js";

/** The configured model, or exit 2 saying how to configure one. */
export function requireModelConfig(config: AgentConfig): ModelConfig {
  if (config.model) return config.model;
  throw new CliExit(
    EXIT_CODES.usage,
    `No model is configured: add a "model" entry to ${config.file}, e.g. { "provider": "openai", "name": "gpt-4.1-mini" } (the key comes from OPENAI_API_KEY).`,
  );
}

/**
 * The client for the configured model, its key read from the environment variable the
 * configuration names (exit 2 naming that variable when it is unset; the key is never printed).
 */
export function createConfiguredModel(model: ModelConfig, io: CliIo): ModelClient {
  const apiKey = readApiKey(model, io.env);
  const options = {
    model: model.name,
    apiKey,
    ...(model.baseUrl === undefined ? {} : { baseUrl: model.baseUrl }),
  };
  return model.provider === "openai" ? createOpenAiModel(options) : createAnthropicModel(options);
}

// JSON-RPC code for "the user rejected the request", as the MCP SDK's clients answer a refused sampling.
const REFUSED = -1;
const INTERNAL_ERROR = -32603;

/** What a server's sampling requests run through. */
export interface SamplingHandlerOptions {
  server: string;
  /**
   * The configured model, made on first use (it may throw, e.g. for a missing API key: the request
   * is then refused with that message); every request runs on it, whatever the server prefers.
   */
  model: () => ModelClient;
  /** The one gate: a sampling request is authorized (default `ask`: effect external) like a tool call. */
  gate: ToolGate;
  events: EventSink;
  /** The run a held sampling call belongs to, and the cwd its approval binds. */
  runId: () => string;
  cwd: string;
  timeoutMs: number;
  /**
   * Asks the person at the terminal about a held request (shown whole); undefined without a terminal,
   * where a held request is refused with the id to approve.
   */
  askOperator?: (held: WaitingOutcome, input: JsonValue, signal: AbortSignal) => Promise<boolean>;
}

/**
 * A server's `sampling/createMessage` as a governed action: it is a call of the tool
 * `mcp_sampling__<server>` (effect `external`, so the default policy asks; rules can name it),
 * validated, authorized, approved where the policy asks (the whole prompt is the call's
 * input, so the approval shows it whole and binds it) and audited by the executor, then run on the
 * configured model with the (already capped) `maxTokens`. The tool lives in a registry of its own:
 * the model of an agent run never sees it.
 */
export function createSamplingHandler(options: SamplingHandlerOptions): SamplingHandler {
  const registry = new ToolRegistry();
  // Not in the `mcp_server__` namespace: that is the server's registry group, whose approvals are
  // voided when the tool is not registered; this one never is, it lives here.
  const name = samplingToolName(options.server);
  registry.register(
    defineTool({
      name,
      description: `A sampling request of the MCP server "${options.server}", run on the configured model.`,
      schema: z.strictObject({
        systemPrompt: z.string().optional(),
        messages: z.array(z.strictObject({ role: z.enum(["user", "assistant"]), text: z.string() })).min(1),
        maxTokens: z.number().int().min(1),
      }),
      effect: "external",
      identity: { server: options.server, builtin: "sampling" },
      execute: async (input, context) => {
        const result = await options.model().createTurn({
          ...(input.systemPrompt === undefined ? {} : { system: input.systemPrompt }),
          messages: input.messages.map((message) =>
            message.role === "user"
              ? { role: "user", content: message.text }
              : { role: "assistant", content: message.text, toolCalls: [] },
          ),
          tools: [],
          signal: context.signal,
          maxOutputTokens: input.maxTokens,
        });
        if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
        return { text: result.text ?? "", model: options.model().model, stopReason: result.stopReason };
      },
    }),
  );
  return async (request, { signal }): Promise<SamplingAnswer> => {
    const input: JsonValue = {
      ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
      messages: request.messages.map((message) => ({ role: message.role, text: message.text })),
      maxTokens: request.maxTokens,
    };
    const execute = () =>
      executeToolCall(
        { name, input },
        {
          registry,
          gate: options.gate,
          runId: options.runId(),
          cwd: options.cwd,
          timeoutMs: options.timeoutMs,
          signal,
          events: options.events,
        },
      );
    let outcome = await execute();
    if (outcome.type === "waiting") {
      const approved = options.askOperator ? await options.askOperator(outcome, input, signal) : false;
      if (!approved) {
        return {
          ok: false,
          code: REFUSED,
          message: `the sampling call is held for approval ${outcome.requestId}; approve it and call the tool again`,
        };
      }
      outcome = await execute();
      if (outcome.type === "waiting")
        return { ok: false, code: REFUSED, message: "the sampling request was not approved" };
    }
    if (!outcome.ok) {
      const code = outcome.error === "policy_denied" ? REFUSED : INTERNAL_ERROR;
      return { ok: false, code, message: `sampling refused (${outcome.error}): ${outcome.message}` };
    }
    const output = outcome.output as { text: string; model: string; stopReason: string };
    return {
      ok: true,
      text: output.text,
      model: output.model,
      stopReason: toMcpStopReason(output.stopReason),
    };
  };
}

/** The tool a server's sampling requests are calls of: `mcp_sampling__<server>`. */
export function samplingToolName(server: string): string {
  return `mcp_sampling__${server}`;
}

function toMcpStopReason(reason: string): string {
  if (reason === "end_turn") return "endTurn";
  if (reason === "max_tokens") return "maxTokens";
  return reason;
}

/**
 * The sampling handler of a configured server (`"sampling": { "maxTokens" }` in its entry): the
 * model of the `model` entry, made when the first request comes (a missing entry or API key refuses
 * that request, saying why); a held request is asked about at a terminal (not with `--json`), else
 * refused with the id to approve. Sampling calls are held under one run per server
 * (`run_sampling_<server>`), so an approval given later applies when the server sends the same
 * request again, once.
 */
export function createConfiguredSampling(
  server: string,
  context: {
    config: AgentConfig;
    io: CliIo;
    json: boolean;
    gate: ToolGate;
    /** Where a held sampling request is decided, and the audit trail. */
    state: ApprovalDecidingState;
    cwd: string;
  },
): SamplingHandler {
  const { config, io, state } = context;
  let model: ModelClient | undefined;
  const interactive = !context.json && isInteractive(io);
  return createSamplingHandler({
    server,
    model: () => {
      try {
        model ??= createConfiguredModel(requireModelConfig(config), io);
      } catch (error) {
        // The reason (a file path, a variable name) is for the person, not for the server.
        writeLine(
          io.stderr,
          `agent: sampling for "${safeLine(server)}" refused: ${safeText(messageOf(error))}`,
        );
        throw new Error("sampling is offered but no usable model is configured");
      }
      return model;
    },
    gate: context.gate,
    events: state.events,
    runId: () => `run_sampling_${server}`,
    cwd: context.cwd,
    timeoutMs: config.toolTimeoutMs,
    ...(interactive
      ? {
          askOperator: async (held, input, signal) =>
            (await decideHeldCall(state, io, held.requestId, input, signal)) === "approve",
        }
      : {}),
  });
}
