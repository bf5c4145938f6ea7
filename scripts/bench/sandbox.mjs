// The cost of the bubblewrap sandbox: a server's start (spawn + MCP handshake) and a sequential echo
// round trip, isolated (network none, the bench server's files read-only) against the same server
// started directly, in the same run. Variants take turns within each round, so load drift is shared.
import { BENCH_SERVER_PATH, REPO_ROOT } from "./modules.mjs";
import { onServerCpu } from "./placement.mjs";
import { median } from "./stats.mjs";

const NEVER = new AbortController().signal;
const ECHO = { name: "echo", arguments: { message: "hello" } };
const WARMUP_CALLS = 100;

async function open(modules, cleanup, launch) {
  const parameters = { command: process.execPath, args: [BENCH_SERVER_PATH], cwd: REPO_ROOT };
  // Isolated, the sandbox's command (bwrap, or the shell that puts it in a pids cgroup) is what goes
  // on the servers' CPU, not the one inside it.
  const transport = modules.createStdioTransport(
    launch
      ? { ...parameters, launch: async (spec) => onServerCpu(await launch(spec)) }
      : onServerCpu(parameters),
  );
  const started = performance.now();
  const close = cleanup.add(() => transport.close());
  await modules.initializeServer(transport, { signal: NEVER });
  // Registered once the pid exists (it is bwrap's for the isolated variant: its group ends the sandbox).
  cleanup.add(() => transport.close(), transport.pid());
  return { transport, close, startMs: performance.now() - started };
}

async function echoRoundTrips(transport, count) {
  // A fresh server's first calls run cold (JIT): they are not what a call costs.
  for (let index = 0; index < WARMUP_CALLS; index += 1) {
    const response = await transport.request("tools/call", ECHO, NEVER);
    if (!response.ok) throw new Error(`echo failed: ${response.error.message}`);
  }
  const latencies = [];
  for (let index = 0; index < count; index += 1) {
    const before = performance.now();
    const response = await transport.request("tools/call", ECHO, NEVER);
    if (!response.ok) throw new Error(`echo failed: ${response.error.message}`);
    latencies.push(performance.now() - before);
  }
  return median(latencies);
}

/**
 * Median start time and median sequential echo latency, for `direct` and `isolated` servers; or
 * `undefined` (with a reason) when bubblewrap cannot run here.
 */
export async function benchSandbox(modules, cleanup, { progress, rounds, calls }) {
  const sandbox = modules.createBwrapSandbox({});
  const preflight = await sandbox.preflight();
  if (!preflight.ok) return { skipped: preflight.reason };
  const confinement = sandbox.confine({ network: "deny" });
  const launch = (spec) => confinement.launch(spec);
  const variants = { direct: undefined, isolated: launch };
  const start = { direct: [], isolated: [] };
  const call = { direct: [], isolated: [] };
  progress("sandbox: warming up");
  for (const variant of Object.values(variants)) await (await open(modules, cleanup, variant)).close();
  for (let round = 0; round < rounds; round += 1) {
    progress(`sandbox: round ${round + 1}/${rounds}`);
    const order = round % 2 === 0 ? ["direct", "isolated"] : ["isolated", "direct"];
    for (const name of order) {
      const opened = await open(modules, cleanup, variants[name]);
      start[name].push(opened.startMs);
      call[name].push(await echoRoundTrips(opened.transport, calls));
      await opened.close();
    }
  }
  return {
    startDirect: median(start.direct),
    startIsolated: median(start.isolated),
    callDirect: median(call.direct),
    callIsolated: median(call.isolated),
  };
}
