// `--only=audit`: where the JSONL audit's cost goes across a process boundary. The same full gate
// over the same stdio echo server, with: no sink, a sink that takes the records and drops them, a
// sink that serializes every record but writes nothing (both resolve decisions a microtask later, as
// the file does), the JSONL file in each flush mode. The difference between neighbours is one mechanism: serialization, the write syscall, the
// microtask wave before the decision's write, the end-of-turn setImmediate. Then the audit's own work
// for one call in process, hot and with caches evicted (audit-cache.mjs): the multiplier between the two.
import { auditCacheReport, benchAuditCache, createCapturingSink } from "./audit-cache.mjs";
import { benchCalls } from "./calls.mjs";
import { echoCallers, openAuditSink, openGate, openRawClient } from "./clients.mjs";

/**
 * A sink that takes every record and does nothing with it (its decisions resolve a microtask later,
 * as the file's do): what the executor's side of the audit costs (the records built, stamped and
 * awaited) without serialization or I/O.
 */
function discardingSink(modules) {
  const written = Promise.resolve();
  return { clock: modules.createEventClock(), emit: () => {}, emitDecision: () => written };
}

/** A sink that builds every record's line as the file does, and drops it. */
function serializingSink(modules) {
  const clock = modules.createEventClock();
  const serialize = (event) => modules.serializeForAudit(event, modules.DEFAULT_AUDIT_LIMITS);
  return {
    clock,
    emit: (event) => void serialize(event),
    emitDecision: (event) => {
      serialize(event);
      return Promise.resolve();
    },
  };
}

/** Measures raw against the gate with each audit variant; returns benchCalls' results by name. */
export async function benchAuditCost(modules, cleanup, { progress, calls }) {
  progress("audit: starting 7 servers (one per client)");
  const raw = await openRawClient(modules, cleanup, {});
  const variants = {
    noSink: modules.NULL_EVENT_SINK,
    recordsOnly: discardingSink(modules),
    serializeOnly: serializingSink(modules),
    jsonlDecisions: openAuditSink(modules, cleanup),
    jsonlBatched: openAuditSink(modules, cleanup, { flush: "batched" }),
    jsonlSync: openAuditSink(modules, cleanup, { flush: "sync" }),
  };
  const gates = {};
  const closers = [raw.close];
  for (const [name, events] of Object.entries(variants)) {
    const gate = await openGate(modules, cleanup, events);
    gates[name] = gate.environment;
    closers.push(gate.close);
  }
  const results = await benchCalls(echoCallers(modules, { raw: raw.client, gates }), progress, calls);
  await Promise.all(closers.map((close) => close()));
  progress("audit: the audit's work for one call, hot and with caches evicted (in process)");
  const capturing = createCapturingSink(modules);
  const captured = await openGate(modules, cleanup, capturing);
  const opened = capturing.records.length;
  await echoCallers(modules, { gates: { captured: captured.environment } }).captured();
  const records = capturing.records.slice(opened);
  await captured.close();
  const cache = await benchAuditCache(modules, cleanup, { records });
  return { results, cache };
}

/**
 * Lines for the report: each variant against raw and against the gate without a sink, then the
 * audit's own work hot and cache-cold.
 */
export function auditCostReport({ results, cache }) {
  const { raw, noSink } = results;
  const lines = [
    "",
    "Where the audit's cost goes (full gate over stdio; ratios to raw, CPU above the gate with no sink):",
  ];
  for (const [name, result] of Object.entries(results)) {
    if (name === "raw") continue;
    lines.push(
      `  ${name.padEnd(15)} latency ${(result.latencyMs / raw.latencyMs).toFixed(2)}x, ` +
        `throughput ${(result.concurrentPerSecond / raw.concurrentPerSecond).toFixed(2)}x, ` +
        `client CPU ${((result.cpuMsPerCall - noSink.cpuMsPerCall) * 1000).toFixed(0)} µs above no sink`,
    );
  }
  return [...lines, ...auditCacheReport(cache)];
}
