// `--only=peers`: this project's full gate against the raw SDK Client and the peer stacks, all over
// the same stdio echo server (one process each), interleaved rounds, medians (see calls.mjs). The
// peers are dev dependencies of tests/bench (the private @agent/bench-peers package) only.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { benchCalls } from "./calls.mjs";
import { echoCallers, openAuditSink, openGate, openRawClient } from "./clients.mjs";
import { BENCH_SERVER_PATH, REPO_ROOT } from "./modules.mjs";
import { onServerCpu } from "./placement.mjs";

const STACKS = [
  ["gate", "this project, full gate + JSONL audit"],
  ["gateNoSink", "this project, full gate, no audit sink"],
  ["loopStep", "this project, agent loop tool step (startRun, 2 scripted model turns, JSONL audit)"],
  ["openaiToolLayer", "openai-agents-js 0.14.3, tool layer (invokeFunctionTool)"],
  ["openaiRunner", "openai-agents-js 0.14.3, runner tool step (Runner.run, 2 scripted model turns)"],
  ["openaiRunnerTraced", "openai-agents-js 0.14.3, runner tool step, traced"],
  ["vercelExecute", "Vercel AI SDK (@ai-sdk/mcp 1.0.102) tool.execute"],
  ["langchainInvoke", "LangChain @langchain/mcp-adapters 1.1.4 tool.invoke"],
];

const ECHO_TURN = {
  ok: true,
  text: null,
  toolCalls: [{ id: "tc_bench", name: "mcp__bench__echo", arguments: '{"message":"hello"}' }],
  stopReason: "tool_use",
  usage: { inputTokens: 1, outputTokens: 1 },
};
const ANSWER_TURN = {
  ok: true,
  text: "echoed",
  toolCalls: [],
  stopReason: "end_turn",
  usage: { inputTokens: 1, outputTokens: 1 },
};

/**
 * Our counterpart of the openai-agents-js runner rows: one startRun whose scripted model (no I/O)
 * asks for echo, then answers once it has the tool's result; the run saved to an in-memory store
 * after each turn and call, every event to the gate's JSONL audit file.
 */
function loopStepCaller(modules, environment) {
  const model = {
    provider: "bench",
    model: "echo",
    createTurn: async ({ messages }) => (messages.at(-1)?.role === "tool" ? ANSWER_TURN : ECHO_TURN),
  };
  const store = new modules.InMemoryRunStore();
  const { registry, gate, cwd, events } = environment;
  return async () => {
    const result = await modules.startRun(
      { model, tools: registry, gate, store, cwd, events },
      { prompt: "echo hello", maxTurns: 3 },
    );
    if (result.status !== "completed") throw new Error(`startRun ended ${result.status}, not completed`);
  };
}

/** Measures raw, the gate with and without its audit file and the peers; benchCalls' results by name. */
export async function benchPeers(modules, cleanup, { progress, calls }) {
  const peers = await import(pathToFileURL(join(REPO_ROOT, "tests/bench/peers.mjs")).href);
  progress("peers: starting 6 servers (one per stack)");
  const raw = await openRawClient(modules, cleanup, {});
  const gate = await openGate(modules, cleanup, openAuditSink(modules, cleanup));
  const gateNoSink = await openGate(modules, cleanup, modules.NULL_EVENT_SINK);
  const opened = await peers.openPeers(onServerCpu({ command: process.execPath, args: [BENCH_SERVER_PATH] }));
  cleanup.add(() => opened.close());
  const callers = {
    ...echoCallers(modules, {
      raw: raw.client,
      gates: { gate: gate.environment, gateNoSink: gateNoSink.environment },
    }),
    loopStep: loopStepCaller(modules, gate.environment),
    ...opened.callers,
  };
  const results = await benchCalls(callers, progress, calls);
  await Promise.all([raw.close(), gate.close(), gateNoSink.close(), opened.close()]);
  return { results, notes: peers.PEER_NOTES };
}

/** The table: ratios to the raw SDK, from one run. */
export function peersReport({ results, notes }) {
  const { raw } = results;
  const lines = [
    "",
    "Peers over the same stdio echo server, ratios to the raw SDK Client.callTool in the same run:",
    `  raw: ${(raw.latencyMs * 1000).toFixed(1)} µs sequential, ${raw.concurrentPerSecond.toFixed(0)} calls/s with 100 in flight, ${micros(raw.cpuMsPerCall)} µs client CPU a call sequentially, ${micros(raw.concurrentCpuMsPerCall)} µs with 100 in flight`,
    "",
    "| stack | sequential latency | 100 in flight, throughput | client CPU above raw, sequential | client CPU above raw, 100 in flight |",
    "|---|---|---|---|---|",
  ];
  for (const [name, label] of STACKS) {
    const ours = results[name];
    lines.push(
      `| ${label} | ${(ours.latencyMs / raw.latencyMs).toFixed(2)}x | ` +
        `${(ours.concurrentPerSecond / raw.concurrentPerSecond).toFixed(2)}x | ` +
        `${micros(ours.cpuMsPerCall - raw.cpuMsPerCall, 0)} µs | ` +
        `${micros(ours.concurrentCpuMsPerCall - raw.concurrentCpuMsPerCall, 0)} µs |`,
    );
  }
  const { gate, gateNoSink } = results;
  lines.push(
    "",
    `The audit's own share (gate + JSONL against gate without sink): ${(gate.latencyMs / gateNoSink.latencyMs).toFixed(2)}x latency, ${micros(gate.cpuMsPerCall - gateNoSink.cpuMsPerCall, 0)} µs client CPU a call sequentially, ${micros(gate.concurrentCpuMsPerCall - gateNoSink.concurrentCpuMsPerCall, 0)} µs with 100 in flight.`,
    "Where that share goes (records, serialization, the durable write with serialization free): --only=audit.",
    `With 100 in flight the client's main thread was busy for ${busy(raw)} of each batch's wall time with raw, ${busy(gate)} with the full gate + JSONL`,
    `and ${busy(gateNoSink)} without sink: near 100% the client's own work a call sets the pace (for 0.8x raw's throughput the gate + JSONL`,
    `may keep its main thread ${micros(1000 / (raw.concurrentPerSecond * 0.8))} µs a call at most; it kept it ${micros((1000 / gate.concurrentPerSecond) * gate.concurrentBusyShare)} µs), well under it the client waits.`,
    "Per call: the full gate looks the tool up, validates the input with zod, asks the policy gate (rule match,",
    "digest-free allow), queues its time limit under the registry's one timer, sends over our stdio transport",
    "(bounded buffers), validates the result's shape, and (with the sink) writes the decision durably before",
    "the call runs and the outcome after.",
    ...Object.values(notes).map((note) => `  ${note}`),
  );
  return lines;
}

function busy(result) {
  return `${(result.concurrentBusyShare * 100).toFixed(0)}%`;
}

function micros(ms, digits = 1) {
  return (ms * 1000).toFixed(digits);
}

/** The targeted rows of the peers suite. */
export function peerRows({ results }, row, formatMs, formatRate) {
  const { raw, gate } = results;
  return [
    row("peers: full gate + JSONL audit, sequential latency", gate.latencyMs, raw.latencyMs, formatMs, {
      target: 1.15,
    }),
    row(
      "peers: full gate + JSONL audit, 100 in flight",
      gate.concurrentPerSecond,
      raw.concurrentPerSecond,
      formatRate,
      {
        better: "higher",
        target: 0.8,
      },
    ),
  ];
}
