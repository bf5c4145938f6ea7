// Bytes allocated on the JavaScript heap per `tools/call`, for each client kind, sequential and 100
// at once. Wall and CPU time of the same code swing by ±10 µs per call on a shared machine;
// allocation is nearly deterministic and a proxy for what a call costs in garbage collection and
// cache pressure, so a small regression in the gate's hot path shows here when timings cannot.
// Each client runs in a process of its own (alloc-runner.mjs, which says how a window is measured):
// its JIT state and heap are then its own, the same under `--only=alloc` as in the full run, and not
// what the other suites (or the other clients' calls through shared code) left behind. The figure is
// the least of its windows: in steady state a client's lowest window came out the same to ~0.2% in
// every process, while the others lay 1-8% above it (whether a collection fell in them or not), a
// different share of them in each run, so their median moved by up to 4% between runs. A regression
// on the path every call takes raises the floor. Only on-heap bytes count (Buffer contents live
// outside the heap).
import { fileURLToPath } from "node:url";
import { runJsonProcess } from "./json-process.mjs";
import { resultRow } from "./stats.mjs";

// 9 windows of 300 calls after 2,500 + 2,500 warm-up calls: 4-12 s for the whole suite (idle to
// loaded machine), two processes at a time.
const DEFAULTS = {
  rounds: 9,
  calls: 300,
  concurrentCalls: 100,
  warmupCalls: 2500,
  samplingInterval: 512,
  parallel: 2,
  // The agent loop against the bare loop (loop-kinds.mjs), a window per run of `turns` turns.
  loop: { turns: 1000, warmups: 20, runs: 7 },
};
const RUNNER = fileURLToPath(new URL("./alloc-runner.mjs", import.meta.url));
const LOOP_RUNNER = fileURLToPath(new URL("./loop-runner.mjs", import.meta.url));
const KINDS = ["raw", "transport", "gate", "gateSilent"];
const LOOPS = ["agent", "bare"];
// The kinds whose allocation sites the report compares.
const PROFILED = new Set(["transport", "gate"]);

/** The `count` sites where `ours` allocates the most beyond `baseline`, in bytes per call. */
function topSitesBeyond(ours, baseline, count) {
  return Object.entries(ours)
    .map(([site, bytes]) => ({ site, bytesPerCall: bytes - (baseline[site] ?? 0) }))
    .filter((entry) => entry.bytesPerCall > 0)
    .sort((a, b) => b.bytesPerCall - a.bytesPerCall)
    .slice(0, count);
}

/**
 * Bytes allocated per call (the least window's), `sequential` and `concurrent`, for `raw` (the SDK's
 * Client.callTool), `transport` (ours), `gate` (the full gate, JSONL audit file in its default flush)
 * and `gateSilent` (the full gate, no events); `gateSites`, the top sites of the full gate beyond
 * what the transport allocates at the same place; and `loopPerTurn`, bytes per turn of the
 * agent loop and of the bare loop (loop-runner.mjs in its `alloc` mode).
 */
export async function benchAlloc(cleanup, { progress, ...options }) {
  const settings = { ...DEFAULTS, ...options };
  const loop = settings.loop;
  progress(
    `alloc: a process per client (${KINDS.join(", ")}), ${settings.parallel} at a time: ` +
      `${settings.warmupCalls} + ${settings.warmupCalls} warm-up calls, then ${settings.rounds} windows ` +
      `of ${settings.calls} calls each way; and per loop (${LOOPS.join(", ")}): ${loop.warmups} + ` +
      `${loop.runs} runs of ${loop.turns} turns`,
  );
  const processes = [
    ...KINDS.map((kind) => ({
      name: kind,
      script: RUNNER,
      args: [kind, JSON.stringify({ ...settings, sites: PROFILED.has(kind) })],
    })),
    ...LOOPS.map((kind) => ({
      name: `${kind} loop`,
      script: LOOP_RUNNER,
      args: [kind, loop.turns, loop.warmups, loop.runs, "alloc"],
    })),
  ];
  const measured = {};
  // Bytes do not depend on timing, so the processes may share the cores to save wall time.
  const lane = async () => {
    for (let next = processes.shift(); next !== undefined; next = processes.shift()) {
      measured[next.name] = await runJsonProcess(cleanup, next.script, next.args);
      progress(`alloc: ${next.name} measured`);
    }
  };
  await Promise.all(Array.from({ length: settings.parallel }, lane));
  const result = { settings };
  for (const kind of KINDS) {
    const { sequential, concurrent } = measured[kind];
    result[kind] = { sequential: Math.min(...sequential), concurrent: Math.min(...concurrent) };
  }
  result.gateSites = topSitesBeyond(measured.gate.sites, measured.transport.sites, 8);
  result.loopPerTurn = Object.fromEntries(
    LOOPS.map((kind) => [kind, Math.min(...measured[`${kind} loop`].bytesPerTurn)]),
  );
  return result;
}

/**
 * The table rows of {@link benchAlloc}: each client's bytes per call against the SDK Client's, and the
 * agent loop's bytes per turn against the bare loop's.
 */
export function allocRows(alloc, format) {
  const clients = [
    ["transport", "transport"],
    ["gate", "full gate"],
    ["gateSilent", "full gate, no events"],
  ];
  const modes = [
    ["sequential", "sequential"],
    ["concurrent", `${alloc.settings.concurrentCalls} concurrent`],
  ];
  const callRows = modes.flatMap(([mode, modeName]) =>
    clients.map(([kind, name]) =>
      resultRow({
        metric: `tools/call, allocated per call, ${modeName}: ${name}`,
        ours: alloc[kind][mode],
        raw: alloc.raw[mode],
        format,
      }),
    ),
  );
  const { agent, bare } = alloc.loopPerTurn;
  const turns = `agent loop, allocated per turn (${alloc.settings.loop.turns} turns, scripted model)`;
  return [...callRows, resultRow({ metric: `${turns}: vs bare loop`, ours: agent, raw: bare, format })];
}

/** The report's lines on {@link benchAlloc}: how it was measured and where the full gate allocates. */
export function allocReport(alloc, format) {
  const { rounds, calls, warmupCalls, samplingInterval, loop } = alloc.settings;
  const beyond = alloc.gate.sequential - alloc.transport.sequential;
  const { agent, bare } = alloc.loopPerTurn;
  return [
    `Allocation per call: each client in a process of its own, after ${warmupCalls} sequential and ${warmupCalls}`,
    `concurrent warm-up calls; the least of ${rounds} windows of ${calls} calls (heap growth plus what GC freed).`,
    `The full gate allocates ${format(beyond)} per call (sequential) more than our transport; its top sites beyond`,
    `what the transport allocates at the same place (one sampling heap profile, a sample per ~${samplingInterval} bytes,`,
    "both modes; a function inlined by the JIT counts at its caller; the line where the function starts):",
    ...alloc.gateSites.map(({ site, bytesPerCall }) => `  ${format(bytesPerCall).padStart(9)}  ${site}`),
    `Agent loop (loop-runner.mjs, a process per loop, the least of ${loop.runs} runs of ${loop.turns} turns after ${loop.warmups}):`,
    `  per turn: agent ${format(agent)}, bare ${format(bare)}, the loop's own ${format(agent - bare)}`,
  ];
}
