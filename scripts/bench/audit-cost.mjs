// `--only=audit`: where the JSONL audit's cost goes across a process boundary. The same full gate
// over the same stdio echo server, with: no sink, a sink that takes the records and drops them, a
// sink that serializes every record but writes nothing (both resolve decisions a microtask later, as
// the file does), the JSONL file fed fixed records of the real ones' size (its batching and writes
// with next to no serialization), the JSONL file in each flush mode. The difference between
// neighbours is one mechanism: serialization, the write syscall, the microtask wave before the
// decision's write, the end-of-turn setImmediate. Then the audit's own work for one call in process,
// hot and with caches evicted (audit-cache.mjs): the multiplier between the two.
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

/**
 * The JSONL file with every record replaced by a fixed one of the same line length (one string of
 * plain letters: serializing it is a copy): the file's own batching and writes, its decisions still
 * written before the call runs, with next to none of the serialization. What the durable write
 * costs on its own.
 */
function fixedLinesSink(modules, cleanup, records) {
  const file = openAuditSink(modules, cleanup);
  const [decision, outcome] = records.map((record) => fixedRecord(modules, record));
  return {
    clock: file.clock,
    emit: () => file.emit(outcome),
    emitDecision: () => file.emitDecision(decision),
  };
}

/** A record of `record`'s type whose line is as long as `record`'s. */
function fixedRecord(modules, record) {
  const length = modules.serializeForAudit(record, modules.DEFAULT_AUDIT_LIMITS).length;
  const shell = { type: record.type, pad: "" };
  shell.pad = "x".repeat(Math.max(0, length - JSON.stringify(shell).length));
  // A longer string would be replaced by its hash in the record, and would not be a copy.
  if (shell.pad.length > modules.DEFAULT_AUDIT_LIMITS.maxStringBytes) {
    throw new Error(`audit: a ${record.type} record of ${length} characters is too long to stand in for`);
  }
  return shell;
}

/** One governed call's decision and outcome, as a sink sees them. */
async function captureCallRecords(modules, cleanup) {
  const capturing = createCapturingSink(modules);
  const captured = await openGate(modules, cleanup, capturing);
  const opened = capturing.records.length;
  await echoCallers(modules, { gates: { captured: captured.environment } }).captured();
  await captured.close();
  return capturing.records.slice(opened);
}

/** Measures raw against the gate with each audit variant; returns benchCalls' results by name. */
export async function benchAuditCost(modules, cleanup, { progress, calls }) {
  progress("audit: starting 9 servers (one per client)");
  const records = await captureCallRecords(modules, cleanup);
  const raw = await openRawClient(modules, cleanup, {});
  const variants = {
    noSink: modules.NULL_EVENT_SINK,
    recordsOnly: discardingSink(modules),
    serializeOnly: serializingSink(modules),
    fixedLines: fixedLinesSink(modules, cleanup, records),
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
  const { fixedLines, jsonlDecisions } = results;
  lines.push(
    "  recordsOnly: the records built, stamped and awaited, then dropped; serializeOnly: serialized too;",
    "  fixedLines: the JSONL file written as jsonlDecisions writes it, each record a fixed one of the same size.",
    `  With serialization free, the durable decision write alone keeps the gate + JSONL at ${ratio(fixedLines.latencyMs, raw.latencyMs)} latency`,
    `  and ${ratio(fixedLines.concurrentPerSecond, raw.concurrentPerSecond)} throughput (the file as it is: ${ratio(jsonlDecisions.latencyMs, raw.latencyMs)} and ${ratio(jsonlDecisions.concurrentPerSecond, raw.concurrentPerSecond)}; the peers targets: 1.15x and 0.8x).`,
  );
  return [...lines, ...auditCacheReport(cache)];
}

function ratio(ours, raw) {
  return `${(ours / raw).toFixed(2)}x`;
}
