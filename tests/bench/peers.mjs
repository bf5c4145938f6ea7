// The peer stacks of `pnpm bench --only=peers`, each a one-call function over its own bench server
// (the same stdio echo server as the raw SDK Client the bench compares them with). This file lives in
// the private @agent/bench-peers package so that its imports resolve to the peers installed there,
// dev dependencies of the bench only.

import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { invokeFunctionTool, MCPServerStdio, mcpToFunctionTool, RunContext } from "@openai/agents-core";

const ECHO_ARGUMENTS = { message: "hello" };

/** What each stack does per call, printed under the table. */
export const PEER_NOTES = {
  openaiToolLayer:
    "openai-agents-js tool layer: invokeFunctionTool on mcpToFunctionTool's FunctionTool (JSON.parse of the model's argument string, a function span when tracing is on, MCPServerStdio.callTool through the SDK Client, content mapped to tool output)",
  vercelExecute:
    "Vercel AI SDK @ai-sdk/mcp tool.execute: a tools/call over its own JSON-RPC client; no input validation, no timer, no record",
  langchainInvoke:
    "LangChain @langchain/mcp-adapters DynamicStructuredTool.invoke: zod/JSON Schema input validation, a callback manager run (start/end handlers, run ids), the SDK Client's callTool, content conversion",
};

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
