// Bytes allocated on the JavaScript heap per `tools/call`, for each client kind, sequential and 100
// at once. Wall and CPU time of the same code swing by ±10 µs per call on a shared machine;
// allocation is nearly deterministic and a proxy for what a call costs in garbage collection and
// cache pressure, so a small regression in the gate's hot path shows here when timings cannot.
// Each client runs in a process of its own (alloc-runner.mjs, which says how a window is measured):
// its JIT state and heap are then its own, the same under `--only=alloc` as in the full run, and not
// what the other suites (or the other clients' calls through shared code) left behind. The figure is
// the median of its windows; only on-heap bytes count (Buffer contents live outside the heap).
import { fileURLToPath } from "node:url";
import { runJsonProcess } from "./json-process.mjs";
import { median, resultRow } from "./stats.mjs";

// Allocation is nearly deterministic: 7 windows of 400 calls after 2,500 + 2,500 warm-up calls moved
// the medians by under ~2% between runs, in 3-12 s for all four clients (idle to loaded machine).
const DEFAULTS = {
  rounds: 7,
  calls: 400,
  concurrentCalls: 100,
  warmupCalls: 2500,
  samplingInterval: 512,
  parallel: 2,
};
const RUNNER = fileURLToPath(new URL("./alloc-runner.mjs", import.meta.url));
const KINDS = ["raw", "transport", "gate", "gateSilent"];
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
 * Median bytes allocated per call, `sequential` and `concurrent`, for `raw` (the SDK's
 * Client.callTool), `transport` (ours), `gate` (the full gate, JSONL audit file in its default flush)
 * and `gateSilent` (the full gate, no events); and `gateSites`, the top sites of the full gate beyond
 * what the transport allocates at the same place.
 */
export async function benchAlloc(cleanup, { progress, ...options }) {
  const settings = { ...DEFAULTS, ...options };
  progress(
    `alloc: a process per client (${KINDS.join(", ")}), ${settings.parallel} at a time: ` +
      `${settings.warmupCalls} + ${settings.warmupCalls} warm-up calls, then ${settings.rounds} windows ` +
      `of ${settings.calls} calls each way`,
  );
  const measured = {};
  const queue = [...KINDS];
  // Bytes do not depend on timing, so the processes may share the cores to save wall time.
  const lane = async () => {
    for (let kind = queue.shift(); kind !== undefined; kind = queue.shift()) {
      const runnerSettings = JSON.stringify({ ...settings, sites: PROFILED.has(kind) });
      measured[kind] = await runJsonProcess(cleanup, RUNNER, [kind, runnerSettings]);
      progress(`alloc: ${kind} measured`);
    }
  };
  await Promise.all(Array.from({ length: settings.parallel }, lane));
  const result = { settings };
  for (const kind of KINDS) {
    const { sequential, concurrent } = measured[kind];
    result[kind] = { sequential: median(sequential), concurrent: median(concurrent) };
  }
  result.gateSites = topSitesBeyond(measured.gate.sites, measured.transport.sites, 8);
  return result;
}

/** The table rows of {@link benchAlloc}: each client's bytes per call against the SDK Client's. */
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
  return modes.flatMap(([mode, modeName]) =>
    clients.map(([kind, name]) =>
      resultRow({
        metric: `tools/call, allocated per call, ${modeName}: ${name}`,
        ours: alloc[kind][mode],
        raw: alloc.raw[mode],
        format,
      }),
    ),
  );
}

/** The report's lines on {@link benchAlloc}: how it was measured and where the full gate allocates. */
export function allocSitesReport(alloc, format) {
  const { rounds, calls, warmupCalls, samplingInterval } = alloc.settings;
  const beyond = alloc.gate.sequential - alloc.transport.sequential;
  return [
    `Allocation per call: each client in a process of its own, after ${warmupCalls} sequential and ${warmupCalls}`,
    `concurrent warm-up calls; the median of ${rounds} windows of ${calls} calls (heap growth plus what GC freed).`,
    `The full gate allocates ${format(beyond)} per call (sequential) more than our transport; its top sites beyond`,
    `what the transport allocates at the same place (one sampling heap profile, a sample per ~${samplingInterval} bytes,`,
    "both modes; a function inlined by the JIT counts at its caller; the line where the function starts):",
    ...alloc.gateSites.map(({ site, bytesPerCall }) => `  ${format(bytesPerCall).padStart(9)}  ${site}`),
  ];
}
