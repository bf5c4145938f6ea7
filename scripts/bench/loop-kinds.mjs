// The three loops the agent-loop benchmark compares, each run in a process of its own (loop-runner.mjs).
// Both loops use the same scripted model (a fixed tool call, no copying) and the same local echo tool
// behind the real policy gate (allow rule), with no audit sink, so what differs is the loop alone.
const NEVER = new AbortController().signal;

function echoTurn(turn) {
  return {
    ok: true,
    text: null,
    toolCalls: [{ id: `tc_${turn}`, name: "echo", arguments: '{"text":"hello"}' }],
    stopReason: "tool_use",
    usage: { inputTokens: 1, outputTokens: 1 },
  };
}

/** A model that calls echo on every turn; it copies nothing, so its own cost is the same in both loops. */
function echoModel() {
  let turn = 0;
  return {
    provider: "bench",
    model: "echo",
    createTurn: async () => {
      turn += 1;
      return echoTurn(turn);
    },
  };
}

/** The echo tool in a registry, and the policy gate that allows it. */
export function createWorld(modules) {
  const { z } = modules;
  const registry = new modules.ToolRegistry();
  registry.register(
    modules.defineTool({
      name: "echo",
      description: "Echoes its text.",
      effect: "read",
      schema: z.object({ text: z.string() }),
      execute: ({ text }) => text,
    }),
  );
  const gate = modules.createPolicyGate({
    policy: modules.definePolicy({ rules: [{ tool: "echo", decision: "allow" }] }),
    approvals: new modules.InMemoryApprovalStore(),
  });
  return { registry, gate };
}

/** The baseline: model, parse, executeToolCall, transcript in an array; nothing saved, no events. */
async function bareLoop(modules, world, turns) {
  const model = echoModel();
  const messages = [{ role: "user", content: "echo hello" }];
  const tools = world.registry.list().map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));
  for (let turn = 0; turn < turns; turn += 1) {
    const result = await model.createTurn({ messages, tools, signal: NEVER });
    messages.push({ role: "assistant", content: result.text, toolCalls: result.toolCalls });
    for (const call of result.toolCalls) {
      const outcome = await modules.executeToolCall(
        { name: call.name, input: JSON.parse(call.arguments) },
        { registry: world.registry, gate: world.gate, runId: "run_bare", cwd: "/bench" },
      );
      const content = outcome.ok ? String(outcome.output) : JSON.stringify(outcome);
      messages.push({
        role: "tool",
        toolCallId: call.id,
        toolName: call.name,
        content,
        isError: !outcome.ok,
      });
    }
  }
  return messages.length;
}

/**
 * A store that keeps nothing, answering with a settled promise as the in-memory store does: the
 * breakdown row, the loop's own work without the cost of saving the run.
 */
function discardingStore() {
  return {
    async createRun() {},
    async loadRun() {
      return undefined;
    },
    async listRuns() {
      return [];
    },
    async updateRun(_runId, version) {
      return version + 1;
    },
  };
}

async function agentLoop(modules, world, turns, store = new modules.InMemoryRunStore()) {
  const result = await modules.startRun(
    {
      model: echoModel(),
      tools: world.registry,
      gate: world.gate,
      store,
      cwd: "/bench",
    },
    { prompt: "echo hello", maxTurns: turns },
  );
  if (result.status !== "max_turns" || result.turns !== turns) {
    throw new Error(`the agent loop stopped with ${result.status} after ${result.turns} turns`);
  }
  return result.turns;
}

/**
 * The loops by name: `agent` (startRun, in-memory store), `sqlite` (startRun, the CLI's SQLite run
 * store), `postgres` (startRun, @agent/store-postgres's run store), `unsaved` (discarding store),
 * `bare`. The stores of `sqlite` and `postgres` are `world.runs`, opened by the runner.
 */
export const LOOP_KINDS = {
  agent: agentLoop,
  sqlite: (modules, world, turns) => agentLoop(modules, world, turns, world.runs),
  postgres: (modules, world, turns) => agentLoop(modules, world, turns, world.runs),
  unsaved: (modules, world, turns) => agentLoop(modules, world, turns, discardingStore()),
  bare: bareLoop,
};
