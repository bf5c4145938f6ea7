/**
 * The client the official conformance suite (`@modelcontextprotocol/conformance`) drives: our own
 * packages end to end (McpServerConnection over our Streamable HTTP transport, every call through
 * executeToolCall and the real policy gate), never the raw SDK client. The suite starts it with the
 * scenario server's URL as the last argument and the scenario's name in MCP_CONFORMANCE_SCENARIO;
 * `scripts/conformance/run.mjs` bundles and launches it. It exits 0 when the scenario's steps ran,
 * 1 otherwise (the suite judges the wire, this process only has to behave).
 */
import { McpServerConnection } from "@agent/mcp-client";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { createPolicyGate, definePolicy, InMemoryApprovalStore } from "@agent/policy";
import { executeToolCall, ToolRegistry } from "@agent/tools";
import { createScenarioAuth, type ScenarioAuth } from "./conformance-auth.js";

/**
 * What one scenario does once connected: which tools to call, with which arguments (or with
 * arguments built from the registry as the connection filled it, which is what a model sees).
 */
type ScenarioSteps = {
  calls: {
    tool: string;
    input: Record<string, unknown> | ((registry: ToolRegistry) => Record<string, unknown>);
  }[];
};

// Scenarios not listed only connect, list tools and close (initialize). Every auth/* scenario
// connects through OAuth and calls the scenario server's tool, which some of them guard with a wider scope.
const SCENARIO_STEPS: Readonly<Record<string, ScenarioSteps>> = {
  tools_call: { calls: [{ tool: "add_numbers", input: { a: 5, b: 3 } }] },
  "sse-retry": { calls: [{ tool: "test_reconnection", input: {} }] },
  // The form is accepted with nothing filled in: the client itself must apply the schema's defaults.
  "elicitation-sep1034-client-defaults": { calls: [{ tool: "test_client_elicitation_defaults", input: {} }] },
  // Multi-round-trip requests: two flows that ask for input (with and without requestState), an
  // unrelated call in between that must carry neither, and a result without resultType.
  "sep-2322-client-request-state": {
    calls: [
      { tool: "test_mrtr_echo_state", input: {} },
      { tool: "test_mrtr_unrelated", input: {} },
      { tool: "test_mrtr_no_state", input: {} },
      { tool: "test_mrtr_no_result_type", input: {} },
    ],
  },
  // The focal tool's parameters, as the registry offers them to a model, echoed back verbatim: the
  // suite compares them with what the server listed (the JSON Schema 2020-12 keywords preserved).
  "json-schema-2020-12-preservation": {
    calls: [
      {
        tool: "json_schema_echo",
        input: (registry) => ({
          schema: registry.get(`mcp__${SERVER}__json_schema_2020_12_tool`)?.parameters ?? {},
        }),
      },
    ],
  },
  // The invalid tools are rejected at discovery, so only the valid one can be called.
  "http-invalid-tool-headers": { calls: [{ tool: "valid_tool", input: { region: "us-west1" } }] },
};

/** The calls a scenario names in its context (MCP_CONFORMANCE_CONTEXT's `toolCalls`), if it names any. */
function contextSteps(context: string | undefined): ScenarioSteps | undefined {
  if (!context) return undefined;
  const parsed = JSON.parse(context) as {
    toolCalls?: { name: string; arguments?: Record<string, unknown> }[];
  };
  if (!Array.isArray(parsed.toolCalls)) return undefined;
  return { calls: parsed.toolCalls.map((call) => ({ tool: call.name, input: call.arguments ?? {} })) };
}
const AUTH_STEPS: ScenarioSteps = { calls: [{ tool: "test-tool", input: {} }] };

const SERVER = "conformance";

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  if (!url || !/^https?:\/\//.test(url)) {
    process.stderr.write("usage: client-under-test <server-url> (with MCP_CONFORMANCE_SCENARIO set)\n");
    return 2;
  }
  const isAuth = scenario.startsWith("auth/");
  const steps = (isAuth ? AUTH_STEPS : SCENARIO_STEPS[scenario]) ??
    contextSteps(process.env.MCP_CONFORMANCE_CONTEXT) ?? { calls: [] };
  const auth: ScenarioAuth | undefined = isAuth ? await createScenarioAuth(scenario, url) : undefined;
  const authProvider = auth?.provider;
  const registry = new ToolRegistry();
  const connection = new McpServerConnection({
    name: SERVER,
    connect: () => createStreamableHttpTransport({ url, ...(authProvider ? { authProvider } : {}) }),
    registry,
    timeouts: { initializeMs: 20_000, listToolsMs: 20_000, closeMs: 3_000 },
    features: { elicitation: async () => ({ action: "accept", content: {} }) },
  });
  const gate = createPolicyGate({
    policy: definePolicy({
      rules: steps.calls.map((call) => ({
        tool: `mcp__${SERVER}__${call.tool}`,
        decision: "allow" as const,
      })),
    }),
    approvals: new InMemoryApprovalStore(),
  });
  try {
    await connection.start();
    for (const call of steps.calls) {
      const outcome = await executeToolCall(
        {
          name: `mcp__${SERVER}__${call.tool}`,
          input: typeof call.input === "function" ? call.input(registry) : call.input,
        },
        { registry, gate, runId: `conformance_${scenario}`, cwd: process.cwd(), timeoutMs: 20_000 },
      );
      if (outcome.type !== "observation" || !outcome.ok) {
        process.stderr.write(`${call.tool}: ${JSON.stringify(outcome)}\n`);
        return 1;
      }
    }
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await connection.close();
    await auth?.close();
  }
}

// The suite kills only the shell it started us from; never outlive a scenario's time limit.
setTimeout(() => process.exit(3), 45_000).unref();
process.exitCode = await main();
