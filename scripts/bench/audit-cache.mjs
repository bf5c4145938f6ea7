// Part of `--only=audit`: why the JSONL audit costs several times more across a process boundary
// than in a hot in-process loop. The audit's whole work for one governed call (the decision through
// emitDecision, awaited, one write; the outcome through emit) is replayed in this process on the
// records a real gate call emitted, hot (back to back) and after evicting this process's caches by
// touching a buffer of 1, 4 and 16 MiB (L2 is 1 MiB a core here, L3 32 MiB shared): what a switch
// to the server process, and to other load on a shared machine, does between two calls. Only the
// audit's work is timed, never the eviction.
import { join } from "node:path";
import { median } from "./stats.mjs";

const EVICTIONS_MIB = [1, 4, 16];
// A cache line: touching one byte in each evicts the whole buffer's worth of lines.
const LINE_BYTES = 64;

/** A sink that keeps the records a gate call emits, to replay them. */
export function createCapturingSink(modules) {
  const records = [];
  return {
    records,
    clock: modules.createEventClock(),
    emit: (event) => void records.push(event),
    emitDecision: (event) => {
      records.push(event);
      return Promise.resolve();
    },
  };
}

function evict(buffer) {
  for (let index = 0; index < buffer.length; index += LINE_BYTES) buffer[index] += 1;
}

/**
 * Median µs of the audit's work for one call, hot and after each eviction size, over `calls`
 * replays each (interleaved in slices, as calls.mjs does). `records` are one call's decision and
 * outcome, as a capturing sink saw them.
 */
export async function benchAuditCache(modules, cleanup, { records, calls = 2000, slice = 100 }) {
  const [decision, outcome] = records;
  if (decision?.type !== "tool_call_decided" || outcome?.type !== "tool_call_finished") {
    throw new Error(`audit-cache: expected a decision and an outcome, got ${records.map((r) => r.type)}`);
  }
  const sink = modules.createJsonlEventSink(join(cleanup.tempFolder("agent-bench-"), "audit.jsonl"));
  cleanup.add(() => sink.close());
  const oneCall = async () => {
    await sink.emitDecision(decision);
    sink.emit(outcome);
  };
  const buffers = EVICTIONS_MIB.map((mib) => new Uint8Array(mib * 1024 * 1024));
  const variants = [["hot", undefined], ...EVICTIONS_MIB.map((mib, index) => [`${mib} MiB`, buffers[index]])];
  const samples = Object.fromEntries(variants.map(([name]) => [name, []]));
  for (let index = 0; index < 1000; index += 1) await oneCall();
  for (let done = 0; done < calls; done += slice) {
    for (const [name, buffer] of variants) {
      for (let index = 0; index < slice; index += 1) {
        if (buffer) evict(buffer);
        const started = performance.now();
        await oneCall();
        samples[name].push((performance.now() - started) * 1000);
      }
    }
  }
  sink.close();
  return Object.fromEntries(variants.map(([name]) => [name, median(samples[name])]));
}

/** The report's lines for {@link benchAuditCache}'s medians. */
export function auditCacheReport(medians) {
  const hot = medians.hot;
  return [
    "",
    "The audit's own work for one call (decision awaited and written, outcome queued; real records), in process:",
    ...Object.entries(medians).map(
      ([name, us]) =>
        `  ${name === "hot" ? "hot, back to back" : `after evicting ${name}`}: ${us.toFixed(1)} µs` +
        (name === "hot" ? "" : ` (${(us / hot).toFixed(1)}x hot)`),
    ),
    "  Across the process boundary each call runs after the server (and, on a shared machine, other load)",
    "  had the core, so part of the audit's code and data is evicted as above: its cost there is a multiple",
    "  of the hot one, and moves with the machine's load. The gate's other stages pay the same multiple.",
  ];
}
