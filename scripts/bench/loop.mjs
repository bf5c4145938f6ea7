// The agent loop's own cost per turn: startRun (saving the run after the model's turn and after each
// call, events, the result cap) against a bare loop that calls the same model and executeToolCall
// directly and keeps its transcript in an array. Both use the same scripted model (a fixed tool call,
// no copying) and the same local echo tool behind the real policy gate (allow rule), with no audit
// sink, so what differs is the loop alone. Runs take turns within every round, as in calls.mjs.
import { median } from "./stats.mjs";

const DEFAULTS = { turns: 1000, rounds: 7, warmups: 2 };
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

function createWorld(modules) {
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

/** A store that keeps nothing: the breakdown row, the loop's own work without saving the run. */
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

/** Median milliseconds per run of `turns` turns for the agent loop and the bare loop. */
export async function benchLoop(modules, progress, options = {}) {
  const settings = { ...DEFAULTS, ...options };
  const world = createWorld(modules);
  const kinds = {
    agent: agentLoop,
    unsaved: (modules, world, turns) => agentLoop(modules, world, turns, discardingStore()),
    bare: bareLoop,
  };
  const samples = { agent: [], unsaved: [], bare: [] };
  progress(`loop: warming up (${settings.warmups} runs of ${settings.turns} turns each)`);
  for (let index = 0; index < settings.warmups; index += 1) {
    for (const run of Object.values(kinds)) await run(modules, world, settings.turns);
  }
  for (let round = 0; round < settings.rounds; round += 1) {
    progress(`loop: round ${round + 1}/${settings.rounds}: ${settings.turns} turns each`);
    const names = Object.keys(kinds);
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const kind of order) {
      const started = performance.now();
      await kinds[kind](modules, world, settings.turns);
      samples[kind].push(performance.now() - started);
    }
  }
  const agentMs = median(samples.agent);
  const bareMs = median(samples.bare);
  const unsavedMs = median(samples.unsaved);
  return {
    unsavedPerTurnMs: unsavedMs / settings.turns,
    agentMs,
    bareMs,
    agentPerTurnMs: agentMs / settings.turns,
    barePerTurnMs: bareMs / settings.turns,
    overheadPerTurnMs: (agentMs - bareMs) / settings.turns,
    turns: settings.turns,
  };
}
