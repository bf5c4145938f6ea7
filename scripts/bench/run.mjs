// `pnpm bench`: our MCP client stack against the raw MCP SDK, on the same machine, in the same run,
// against the same minimal server (packages/mcp-testing/src/servers/bench-server.mjs). Progress goes
// to stderr, the result table to stdout. Exit code: 0 when every target is met, 1 when one is missed,
// 2 when the benchmark itself failed. Not part of CI: timings belong here, never in tests.
// Suites (`--only=` takes their names): calls, stages (a governed call's CPU stage by stage), alloc
// (bytes allocated per call: SDK Client, our transport, the full gate with and without its audit
// file, sequential and 100 concurrent; the full gate's top allocation sites; the agent loop's bytes
// per turn against a bare loop's. Timings on a shared machine swing too much to show a regression of
// a few µs; these figures move by ~1%), discovery, servers, sandbox, stores, loop, peers (the gate
// against openai-agents-js, the Vercel AI SDK and LangChain), audit (where the audit file's cost goes),
// eras (our transport in the era it negotiates against the raw official client of that era, over
// stdio and Streamable HTTP, against the SDK v2 server). The bench's main thread runs on one CPU and
// every server on another where taskset can pin them; `--unpinned` leaves both to the scheduler
// (placement.mjs says why).
import { cpus, platform, release } from "node:os";
import { allocReport, allocRows, benchAlloc } from "./alloc.mjs";
import { auditCostReport, benchAuditCost } from "./audit-cost.mjs";
import { benchCalls } from "./calls.mjs";
import { createCleanup } from "./cleanup.mjs";
import { echoCallers, openAuditSink, openGate, openRawClient, openTransport } from "./clients.mjs";
import { benchDiscovery } from "./discovery.mjs";
import { benchEras, eraRows } from "./eras.mjs";
import { benchLoop } from "./loop.mjs";
import { loadModules } from "./modules.mjs";
import { benchPeers, peerRows, peersReport } from "./peers.mjs";
import { placeProcesses } from "./placement.mjs";
import { benchSandbox } from "./sandbox.mjs";
import { benchStages, stageRows } from "./stages.mjs";
import { benchStartup } from "./startup.mjs";
import { formatBytes, formatMs, formatRate, renderTable, resultRow } from "./stats.mjs";
import { benchStores } from "./stores.mjs";

// Sized to finish in well under two minutes on a 2-core machine.
const CALLS = {
  rounds: 5,
  sequentialCalls: 1000,
  concurrentCalls: 100,
  concurrentBatches: 10,
  warmupCalls: 100,
};
// Discovery rounds are short (~0.1 s for all five variants): with 5, the median of identical code moved
// 0.94x-2.49x from run to run on a loaded machine; 25 keep it within ~0.4x for ~2 s more.
const DISCOVERY = { toolCount: 2000, pageSize: 100, rounds: 25 };
const STARTUP = { servers: 10, slowestMs: 500, toolCount: 20, rounds: 5 };
const LOOP = { turns: 1000, rounds: 11, runs: 15, warmups: 20 };
const SANDBOX = { rounds: 7, calls: 500 };
const STAGES = { rounds: 5, calls: 5000, warmupCalls: 2000 };
// Six interleaved rounds: the "medians of six runs", in one process so every ratio is of one run.
const PEERS = {
  rounds: 6,
  sequentialCalls: 600,
  concurrentCalls: 100,
  concurrentBatches: 6,
  warmupCalls: 100,
};
// The same shape as the peers' (six interleaved rounds, one run); six clients take turns.
const ERAS = { ...PEERS };

const progress = (message) => process.stderr.write(`bench: ${message}\n`);

async function measureCalls(modules, cleanup, events) {
  progress("calls: starting 5 servers (one per client)");
  const raw = await openRawClient(modules, cleanup, {});
  const sdkOnOurs = await openRawClient(modules, cleanup, {}, { overOurProcessTransport: true });
  const ours = await openTransport(modules, cleanup, {});
  const gate = await openGate(modules, cleanup, events);
  const gateBatched = await openGate(modules, cleanup, openAuditSink(modules, cleanup, { flush: "batched" }));
  const callers = echoCallers(modules, {
    raw: raw.client,
    sdkOnOurs: sdkOnOurs.client,
    transport: ours.transport,
    gates: { gate: gate.environment, gateBatched: gateBatched.environment },
  });
  const results = await benchCalls(callers, progress, CALLS);
  await Promise.all([raw.close(), sdkOnOurs.close(), ours.close(), gate.close(), gateBatched.close()]);
  return results;
}

function callRows(calls) {
  const { raw, sdkOnOurs, transport, gate, gateBatched } = calls;
  const sequential = `tools/call x${CALLS.sequentialCalls} sequential`;
  const concurrent = `tools/call, ${CALLS.concurrentCalls} concurrent`;
  const sdkOnOursName = "SDK Client on our process transport";
  const batched = 'full gate, audit flush "batched"';
  const higher = { better: "higher" };
  return [
    row(`${sequential}: transport latency`, transport.latencyMs, raw.latencyMs, formatMs, { target: 1.05 }),
    row(`${sequential}: full gate latency`, gate.latencyMs, raw.latencyMs, formatMs, { target: 1.1 }),
    row(`${sequential}: ${batched} latency`, gateBatched.latencyMs, raw.latencyMs, formatMs),
    row(`${sequential}: ${sdkOnOursName}`, sdkOnOurs.latencyMs, raw.latencyMs, formatMs),
    row(`${sequential}: transport client CPU/call`, transport.cpuMsPerCall, raw.cpuMsPerCall, formatMs),
    row(`${sequential}: full gate client CPU/call`, gate.cpuMsPerCall, raw.cpuMsPerCall, formatMs),
    row(`${sequential}: ${batched} CPU/call`, gateBatched.cpuMsPerCall, raw.cpuMsPerCall, formatMs),
    row(`${sequential}: ${sdkOnOursName} CPU/call`, sdkOnOurs.cpuMsPerCall, raw.cpuMsPerCall, formatMs),
    row(
      `${concurrent}: transport throughput`,
      transport.concurrentPerSecond,
      raw.concurrentPerSecond,
      formatRate,
      {
        ...higher,
        target: 0.9,
      },
    ),
    row(
      `${concurrent}: full gate throughput`,
      gate.concurrentPerSecond,
      raw.concurrentPerSecond,
      formatRate,
      {
        ...higher,
        target: 0.9,
      },
    ),
    row(
      `${concurrent}: ${batched} throughput`,
      gateBatched.concurrentPerSecond,
      raw.concurrentPerSecond,
      formatRate,
      higher,
    ),
    row(
      `${concurrent}: ${sdkOnOursName}`,
      sdkOnOurs.concurrentPerSecond,
      raw.concurrentPerSecond,
      formatRate,
      higher,
    ),
  ];
}

function discoveryRows(discovery) {
  const tools = `discovery of ${DISCOVERY.toolCount} tools, ${DISCOVERY.pageSize} per page`;
  return [
    row(`${tools}: list + convert + register`, discovery.ours, discovery.raw, formatMs, { target: 2 }),
    row(`${tools}: refreshTools (rediscovery)`, discovery.refresh, discovery.raw, formatMs),
    row(`${tools}: listing only`, discovery.listingOnly, discovery.raw, formatMs),
  ];
}

function startupRows(startup) {
  const servers = `${STARTUP.servers} servers at once vs the slowest alone`;
  return [
    row(servers, startup.together, startup.slowestAlone, formatMs, { target: 1.3 }),
    row(`${servers}, SDK Client`, startup.rawTogether, startup.rawSlowestAlone, formatMs),
    row("slowest server alone: connect + list", startup.slowestAlone, startup.rawSlowestAlone, formatMs),
  ];
}

function sandboxRows(sandbox) {
  if (sandbox.skipped) {
    progress(`sandbox: skipped, bubblewrap cannot run here: ${sandbox.skipped}`);
    return [];
  }
  const isolated = "bubblewrap sandbox (network none) vs the same server unisolated";
  return [
    row(`${isolated}: start (spawn + handshake)`, sandbox.startIsolated, sandbox.startDirect, formatMs, {
      target: 1.5,
    }),
    row(`${isolated}: echo round trip, sequential`, sandbox.callIsolated, sandbox.callDirect, formatMs, {
      target: 1.05,
    }),
  ];
}

function storeRows(stores) {
  const call = "governed call held, approved and run (store operations only)";
  return [
    row(`${call}: PostgreSQL vs SQLite`, stores.postgres, stores.sqlite, formatMs),
    row(`${call}: SQLite vs in memory`, stores.sqlite, stores.memory, formatMs),
  ];
}

function loopRows(loop) {
  const turns = `agent loop, ${LOOP.turns} turns (scripted model, allowed echo tool)`;
  return [
    // Context since issue 24: the target is the loop's overhead without its two saves (under 5 µs a
    // turn, in the report below); the saves are shown per store.
    row(`${turns}: time per turn vs bare loop`, loop.agentPerTurnMs, loop.barePerTurnMs, formatMs),
    row(
      `${turns}: the same, run not saved (discarding store)`,
      loop.unsavedPerTurnMs,
      loop.barePerTurnMs,
      formatMs,
    ),
  ];
}

function row(metric, ours, baseline, format, extra = {}) {
  return resultRow({ metric, ours, raw: baseline, format, ...extra });
}

function report(rows, { placement, discovery, loop, alloc, extra }) {
  const cpu = cpus();
  const lines = [
    "",
    `MCP client benchmark: node ${process.version}, ${platform()} ${release()}, ${cpu.length} x ${cpu[0]?.model ?? "unknown CPU"}`,
    placement,
    "baseline: @modelcontextprotocol/sdk Client over its StdioClientTransport, unless the metric says",
    "otherwise. transport: our createStdioTransport (our own process transport, which starts the server",
    "in its own process group and session, under the SDK's Protocol). full gate: executeToolCall through",
    "the policy gate (allow rule) and McpServerConnection, with a JSONL audit file in its default flush",
    'mode "decisions" (each decision written before the call runs, with what was queued before it, the',
    "decisions of concurrent calls in one write; the other records once per event-loop turn);",
    '"batched": the same with one audit write per turn.',
    "Latencies and CPU are medians per call; throughputs use the median batch. Rows without a target",
    "are context.",
    "",
    renderTable(rows),
  ];
  if (discovery) {
    lines.push(
      "",
      "Discovery, pieces of ours:",
      `  listing only (listTools over our transport):        ${formatMs(discovery.listingOnly)}`,
      `  convert + register only (toLocalTool, registerAll): ${formatMs(discovery.convertOnly)} ` +
        `(${formatMs(discovery.convertOnly / DISCOVERY.toolCount)} per tool, no I/O)`,
      `  first McpServerConnection.start (spawn + handshake + discovery): ${formatMs(discovery.firstStartMs)}`,
    );
  }
  if (alloc) lines.push("", ...allocReport(alloc, formatBytes));
  lines.push(...extra);
  if (loop) {
    lines.push(
      "",
      "Agent loop (startRun: run saved to an in-memory RunStore after the model's turn and each call,",
      "run events, tool result cap) against a bare loop calling the same model and executeToolCall;",
      `each loop in processes of its own (${LOOP.rounds} rounds, interleaved), a process's figure its total`,
      `CPU time over ${LOOP.runs} runs of ${LOOP.turns} turns after warming up (garbage collection included),`,
      "the median over rounds:",
      `  per turn: agent ${formatMs(loop.agentPerTurnMs)}, bare ${formatMs(loop.barePerTurnMs)}, ` +
        `the loop's own overhead ${formatMs(loop.overheadPerTurnMs)} per turn, of which saving the run ` +
        `${formatMs(loop.agentPerTurnMs - loop.unsavedPerTurnMs)}`,
      `  wall time per turn: agent ${formatMs(loop.agentWallPerTurnMs)}, bare ${formatMs(loop.bareWallPerTurnMs)}`,
      `  the loop's overhead without its saves: ${formatMs(loop.unsavedPerTurnMs - loop.barePerTurnMs)} per turn ` +
        `(target < 5 µs: ${loop.unsavedPerTurnMs - loop.barePerTurnMs < 0.005 ? "met" : "MISSED"})`,
      "  the two saves a turn (the agent loop on each store less the discarding store), client CPU / wall time:",
      ...Object.entries(loop.saves).map(
        ([store, cost]) => `    ${store.padEnd(8)} ${formatMs(cost.cpuMs)} / ${formatMs(cost.wallMs)}`,
      ),
      ...(loop.postgresSkipped ? [`    postgres skipped: ${loop.postgresSkipped}`] : []),
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  const targeted = rows.filter((entry) => entry.hasTarget);
  const met = targeted.filter((entry) => entry.passed).length;
  process.stdout.write(`\nbench: ${met} of ${targeted.length} targets met\n`);
  return met === targeted.length;
}

// `--only=calls,discovery,servers` runs a subset, e.g. while working on one of them; `--unpinned`
// leaves the processes to the scheduler. Returns the suites to run and whether to pin.
function parseArguments() {
  const all = [
    "calls",
    "stages",
    "alloc",
    "discovery",
    "servers",
    "sandbox",
    "stores",
    "loop",
    "peers",
    "audit",
    "eras",
  ];
  const given = process.argv.slice(2);
  const option = given.find((argument) => argument.startsWith("--only="));
  const pin = !given.includes("--unpinned");
  const unknownArguments = given.filter((argument) => argument !== option && argument !== "--unpinned");
  if (unknownArguments.length > 0) {
    throw new Error(`unknown argument ${unknownArguments.join(" ")}; use --only=<suites> and --unpinned.`);
  }
  if (!option) return { suites: new Set(all), pin };
  const chosen = option.slice("--only=".length).split(",");
  const unknown = chosen.filter((name) => !all.includes(name));
  if (unknown.length > 0)
    throw new Error(`--only: unknown suite ${unknown.join(", ")}; use ${all.join(", ")}.`);
  return { suites: new Set(chosen), pin };
}

async function main() {
  const cleanup = createCleanup();
  cleanup.installHandlers();
  const started = performance.now();
  try {
    const { suites, pin } = parseArguments();
    const placement = placeProcesses({ pin });
    progress(placement);
    const modules = await loadModules();
    const events = openAuditSink(modules, cleanup);
    const rows = [];
    let discovery;
    let alloc;
    const extra = [];
    if (suites.has("peers")) {
      const peers = await benchPeers(modules, cleanup, { progress, calls: PEERS });
      rows.push(...peerRows(peers, row, formatMs, formatRate));
      extra.push(...peersReport(peers));
    }
    if (suites.has("eras")) {
      rows.push(
        ...eraRows(await benchEras(modules, cleanup, { progress, calls: ERAS }), row, formatMs, formatRate),
      );
    }
    if (suites.has("audit"))
      extra.push(...auditCostReport(await benchAuditCost(modules, cleanup, { progress, calls: PEERS })));
    if (suites.has("calls")) rows.push(...callRows(await measureCalls(modules, cleanup, events)));
    if (suites.has("stages")) {
      rows.push(...stageRows(await benchStages(modules, cleanup, { progress, ...STAGES }), formatMs));
    }
    if (suites.has("alloc")) {
      alloc = await benchAlloc(cleanup, { progress });
      rows.push(...allocRows(alloc, formatBytes));
    }
    if (suites.has("discovery")) {
      discovery = await benchDiscovery(modules, cleanup, { events, progress, ...DISCOVERY });
      rows.push(...discoveryRows(discovery));
    }
    if (suites.has("servers")) {
      rows.push(...startupRows(await benchStartup(modules, cleanup, { events, progress, ...STARTUP })));
    }
    if (suites.has("sandbox")) {
      rows.push(...sandboxRows(await benchSandbox(modules, cleanup, { progress, ...SANDBOX })));
    }
    if (suites.has("stores")) rows.push(...storeRows(await benchStores(cleanup, { progress })));
    let loop;
    if (suites.has("loop")) {
      loop = await benchLoop(cleanup, progress, LOOP);
      rows.push(...loopRows(loop));
    }
    progress(`done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return report(rows, { placement, discovery, loop, alloc, extra }) ? 0 : 1;
  } catch (error) {
    if (cleanup.interrupted) return 130;
    process.stderr.write(
      `bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`,
    );
    return 2;
  } finally {
    await cleanup.run();
  }
}

process.exitCode = await main();
