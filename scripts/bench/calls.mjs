// Round trips of one `tools/call`, sequential and concurrent, for each client kind. Kinds take turns
// within every round, in a rotating order, so drift on the machine (frequency, other load) is shared.
import { performance } from "node:perf_hooks";
import { median } from "./stats.mjs";

// Defaults of benchCalls' options.
const DEFAULTS = {
  rounds: 5,
  sequentialCalls: 1000,
  concurrentCalls: 100,
  // Batches of `concurrentCalls` per kind and round: one batch alone is too short to time well.
  concurrentBatches: 10,
  // Sequential calls run in slices that alternate between kinds, so that a burst of other load on
  // the machine (seconds long) hits every kind alike instead of whichever ran at that moment.
  sliceCalls: 100,
  warmupCalls: 100,
};

async function runSequential(call, count) {
  const latencies = new Float64Array(count);
  const cpuBefore = process.cpuUsage();
  for (let index = 0; index < count; index += 1) {
    const before = performance.now();
    await call();
    latencies[index] = performance.now() - before;
  }
  // This process's CPU time is the client's alone (servers are other processes): a number that
  // other load on the machine disturbs far less than wall time.
  const cpu = process.cpuUsage(cpuBefore);
  return { latencies, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function runConcurrent(call, count) {
  const cpuBefore = process.cpuUsage();
  const loopBefore = performance.eventLoopUtilization();
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, () => call()));
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  // The main thread's busy time (CPU above also counts the GC's and libuv's threads): wall time
  // beyond it is the client waiting for its server, not working.
  const busyMs = performance.eventLoopUtilization(loopBefore).active;
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, busyMs };
}

function rotate(items, by) {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/**
 * Measures each caller (functions that make one call, by client name) and returns, per client: the
 * median sequential latency, the median client CPU time per sequential call, the concurrent
 * throughput (calls per second over the median batch of `concurrentCalls` calls in flight at once)
 * the median client CPU time per call in those batches (a number other load disturbs far less than
 * the batches' wall time) and the median share of a batch's wall time the client's main thread was
 * busy (event-loop utilization: near 1, the client's own work sets the pace; well under 1, it waits).
 */
export async function benchCalls(callers, progress, options = {}) {
  const settings = { ...DEFAULTS, ...options };
  const kinds = Object.keys(callers);
  const samples = Object.fromEntries(
    kinds.map((kind) => [
      kind,
      { latencies: [], cpuMsPerCall: [], batchMs: [], concurrentCpuMsPerCall: [], concurrentBusyShare: [] },
    ]),
  );

  progress(`calls: warming up (${settings.warmupCalls} calls and 2 batches per client)`);
  for (const kind of kinds) {
    await runSequential(callers[kind], settings.warmupCalls);
    for (let batch = 0; batch < 2; batch += 1) await runConcurrent(callers[kind], settings.concurrentCalls);
  }

  for (let round = 0; round < settings.rounds; round += 1) {
    const order = rotate(kinds, round);
    progress(
      `calls: round ${round + 1}/${settings.rounds}: ${settings.sequentialCalls} sequential + ` +
        `${settings.concurrentBatches}x${settings.concurrentCalls} concurrent each (${order.join(", ")})`,
    );
    const cpuMs = Object.fromEntries(kinds.map((kind) => [kind, 0]));
    for (let done = 0; done < settings.sequentialCalls; done += settings.sliceCalls) {
      const count = Math.min(settings.sliceCalls, settings.sequentialCalls - done);
      for (const kind of order) {
        const slice = await runSequential(callers[kind], count);
        samples[kind].latencies.push(...slice.latencies);
        cpuMs[kind] += slice.cpuMs;
      }
    }
    for (const kind of kinds) samples[kind].cpuMsPerCall.push(cpuMs[kind] / settings.sequentialCalls);
    // Batches alternate between kinds too, so no kind gets all of a slow stretch.
    const concurrentCpuMs = Object.fromEntries(kinds.map((kind) => [kind, 0]));
    for (let batch = 0; batch < settings.concurrentBatches; batch += 1) {
      for (const kind of order) {
        const measured = await runConcurrent(callers[kind], settings.concurrentCalls);
        samples[kind].batchMs.push(measured.ms);
        samples[kind].concurrentBusyShare.push(Math.min(1, measured.busyMs / measured.ms));
        concurrentCpuMs[kind] += measured.cpuMs;
      }
    }
    const concurrentCalls = settings.concurrentBatches * settings.concurrentCalls;
    for (const kind of kinds) {
      samples[kind].concurrentCpuMsPerCall.push(concurrentCpuMs[kind] / concurrentCalls);
    }
  }

  return Object.fromEntries(
    kinds.map((kind) => {
      const { latencies, cpuMsPerCall, batchMs, concurrentCpuMsPerCall, concurrentBusyShare } = samples[kind];
      return [
        kind,
        {
          latencyMs: median(latencies),
          cpuMsPerCall: median(cpuMsPerCall),
          concurrentPerSecond: (settings.concurrentCalls * 1000) / median(batchMs),
          concurrentCpuMsPerCall: median(concurrentCpuMsPerCall),
          concurrentBusyShare: median(concurrentBusyShare),
        },
      ];
    }),
  );
}
