import { MCP_SERVER_TOOL_PREFIX, type SamplingAnswer, type SamplingHandler } from "@agent/mcp-client";
import type { ModelClient } from "@agent/models";
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

// JSON-RPC code for "the user rejected the request", as the MCP SDK's clients answer a refused sampling.
const REFUSED = -1;
const INTERNAL_ERROR = -32603;

/** What a server's sampling requests run through. */
export interface SamplingHandlerOptions {
  server: string;
  /** The configured model; every request runs on it, whatever model the server prefers. */
  model: ModelClient;
  /** The one gate: a sampling request is authorized (default `ask`: effect external) like a tool call. */
  gate: ToolGate;
  events: EventSink;
  /** The run a request is held under, and the cwd its approval binds. */
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
 * A server's `sampling/createMessage` as a governed action: it is a call of the built-in tool
 * `mcp_server__<server>__create_message` (effect `external`, so the default policy asks; rules can
 * name it), validated, authorized, approved where the policy asks (the whole prompt is the call's
 * input, so the approval shows it whole and binds it) and audited by the executor, then run on the
 * configured model with the (already capped) `maxTokens`. The tool lives in a registry of its own:
 * the model of an agent run never sees it.
 */
export function createSamplingHandler(options: SamplingHandlerOptions): SamplingHandler {
  const registry = new ToolRegistry();
  const name = `${MCP_SERVER_TOOL_PREFIX}${options.server}__create_message`;
  registry.register(
    defineTool({
      name,
      description: `A sampling request of the MCP server "${options.server}", run on ${options.model.provider}/${options.model.model}.`,
      schema: z.strictObject({
        systemPrompt: z.string().optional(),
        messages: z.array(z.strictObject({ role: z.enum(["user", "assistant"]), text: z.string() })).min(1),
        maxTokens: z.number().int().min(1),
      }),
      effect: "external",
      identity: { server: options.server, builtin: "create_message", model: options.model.model },
      execute: async (input, context) => {
        const result = await options.model.createTurn({
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
        return { text: result.text ?? "", stopReason: result.stopReason };
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
          message: `the sampling request is held for approval ${outcome.requestId}; approve it and call the tool again`,
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
    const output = outcome.output as { text: string; stopReason: string };
    return {
      ok: true,
      text: output.text,
      model: options.model.model,
      stopReason: toMcpStopReason(output.stopReason),
    };
  };
}

function toMcpStopReason(reason: string): string {
  if (reason === "end_turn") return "endTurn";
  if (reason === "max_tokens") return "maxTokens";
  return reason;
}
