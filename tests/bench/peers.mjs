// The peer stacks of `pnpm bench --only=peers`, each a one-call function over its own bench server
// (the same stdio echo server as the raw SDK Client the bench compares them with). This file lives in
// the private @agent/bench-peers package so that its imports resolve to the peers installed there,
// dev dependencies of the bench only.

import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  Agent,
  getGlobalTraceProvider,
  invokeFunctionTool,
  MCPServerStdio,
  mcpToFunctionTool,
  RunContext,
  Runner,
  Usage,
} from "@openai/agents-core";

const ECHO_ARGUMENTS = { message: "hello" };

/** What each stack does per call, printed under the table. */
export const PEER_NOTES = {
  openaiToolLayer:
    "openai-agents-js tool layer: invokeFunctionTool on mcpToFunctionTool's FunctionTool (JSON.parse of the model's argument string, a function span when tracing is on, MCPServerStdio.callTool through the SDK Client, content mapped to tool output)",
  openaiRunner:
    "openai-agents-js runner tool step: one Runner.run of an Agent with the same FunctionTool and a scripted model (no I/O) that asks for echo on its first turn and answers on its second: two model turns, the runner's tool execution (the tool layer above), run state and items; tracing off",
  openaiRunnerTraced:
    "openai-agents-js runner tool step, traced: the same run with tracing on (trace, agent, generation and function spans, handed to a processor that drops them, so no export I/O)",
  vercelExecute:
    "Vercel AI SDK @ai-sdk/mcp tool.execute: a tools/call over its own JSON-RPC client; no input validation, no timer, no record",
  langchainInvoke:
    "LangChain @langchain/mcp-adapters DynamicStructuredTool.invoke: zod/JSON Schema input validation, a callback manager run (start/end handlers, run ids), the SDK Client's callTool, content conversion",
};

/**
 * A model for the runner that does no I/O: it asks for `echo` until the input holds the tool's
 * result, then answers with a message. Its cost per turn is the building of one small response.
 */
function scriptedEchoModel() {
  const responded = (output) => ({ usage: new Usage(), output, responseId: "bench" });
  return {
    async getResponse(request) {
      const input = request.input;
      const last = Array.isArray(input) ? input[input.length - 1] : undefined;
      if (last?.type === "function_call_result") {
        return responded([
          {
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: "echoed" }],
          },
        ]);
      }
      return responded([
        {
          type: "function_call",
          callId: "call_bench",
          name: "echo",
          arguments: JSON.stringify(ECHO_ARGUMENTS),
          status: "completed",
        },
      ]);
    },
    getStreamedResponse() {
      throw new Error("the bench's scripted model does not stream");
    },
  };
}

/** A tracing processor that takes every trace and span and keeps none (no export, no I/O). */
const DROPPING_PROCESSOR = {
  onTraceStart: async () => {},
  onTraceEnd: async () => {},
  onSpanStart: async () => {},
  onSpanEnd: async () => {},
  shutdown: async () => {},
  forceFlush: async () => {},
};

/** The runner callers: one Runner.run each, with tracing off and on. */
function openaiRunnerCallers(tool) {
  const agent = new Agent({
    name: "bench",
    instructions: "Echo.",
    tools: [tool],
    model: scriptedEchoModel(),
  });
  // The global provider decides whether spans are made at all: on, with nothing exported.
  const provider = getGlobalTraceProvider();
  provider.setDisabled(false);
  provider.setProcessors([DROPPING_PROCESSOR]);
  const plain = new Runner({ tracingDisabled: true });
  const traced = new Runner({ tracingDisabled: false, workflowName: "bench" });
  const runOnce = (runner) => async () => {
    const result = await runner.run(agent, "echo hello", { maxTurns: 3 });
    const toolOutput = result.newItems.find((item) => item.type === "tool_call_output_item");
    if (result.finalOutput !== "echoed" || !JSON.stringify(toolOutput?.output).includes("hello")) {
      throw unexpected("Runner.run", { finalOutput: result.finalOutput, toolOutput: toolOutput?.output });
    }
  };
  return { openaiRunner: runOnce(plain), openaiRunnerTraced: runOnce(traced) };
}

function unexpected(what, value) {
  return new Error(`${what} did not succeed: ${JSON.stringify(value).slice(0, 300)}`);
}

/**
 * Opens the peers over their own servers (`command` + `args` start one); returns `callers` (one echo
 * call each, throwing unless it succeeded) and `close`.
 */
export async function openPeers({ command, args }) {
  const closers = [];

  const openai = new MCPServerStdio({ name: "bench", command, args });
  await openai.connect();
  closers.push(() => openai.close());
  const [openaiEcho] = (await openai.listTools()).filter((tool) => tool.name === "echo");
  const openaiTool = mcpToFunctionTool(openaiEcho, openai, false);
  const runContext = new RunContext({});
  const openaiInput = JSON.stringify(ECHO_ARGUMENTS);

  const vercel = await createMCPClient({ transport: new Experimental_StdioMCPTransport({ command, args }) });
  closers.push(() => vercel.close());
  const vercelTools = await vercel.tools();
  const vercelEcho = vercelTools.echo;
  const vercelOptions = { toolCallId: "bench", messages: [] };

  const langchainClient = new Client({ name: "bench-langchain", version: "1.0.0" });
  await langchainClient.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  closers.push(() => langchainClient.close());
  const langchainEcho = (await loadMcpTools("bench", langchainClient)).find((tool) =>
    tool.name.endsWith("echo"),
  );

  const callers = {
    openaiToolLayer: async () => {
      const result = await invokeFunctionTool({ tool: openaiTool, runContext, input: openaiInput });
      if (!JSON.stringify(result).includes("hello")) throw unexpected("invokeFunctionTool", result);
    },
    ...openaiRunnerCallers(openaiTool),
    vercelExecute: async () => {
      const result = await vercelEcho.execute(ECHO_ARGUMENTS, vercelOptions);
      if (result.isError || result.content?.[0]?.type !== "text") throw unexpected("tool.execute", result);
    },
    langchainInvoke: async () => {
      const result = await langchainEcho.invoke(ECHO_ARGUMENTS);
      if (result === undefined || result === null) throw unexpected("tool.invoke", result);
    },
  };
  const close = async () => {
    for (const closeOne of closers.reverse()) await closeOne();
  };
  return { callers, close };
}
