// One process of the allocation benchmark: `node alloc-runner.mjs <kind> <settings JSON>` opens one
// client (`raw`, `transport`, `gate` or `gateSilent`, see clients.mjs) over its own bench server,
// warms it up, and prints as JSON the bytes it allocated per call in each window, sequential and
// concurrent, and, with `settings.sites`, its allocation sites from one heap profile at the end.
//
// Why it is measured this way (tried first: V8's sampling heap profiler for every window):
// - A window's bytes are exact: the growth of the used heap plus what each garbage collection inside
//   the window freed (heap-bytes.mjs). No GC is forced or kept away, so the process runs as an
//   agent process does; in steady state, windows of the same
//   code agree to a few bytes per call, but for windows a few hundred bytes higher (alloc.mjs
//   takes the least). Checked: on a synthetic loop, the heap's growth with no collection in the
//   window (256 MB young generation) and the sampling profiler agreed within 0.5%; on these calls,
//   windows with a scavenge in them agree with those without, and the one profile's total is
//   within ~2% of the windows'.
// - The sampling profiler forces a full GC when it stops, and after one, a call allocated 20-30%
//   more for several hundred calls (why was not pinned down): a profile per window measured
//   that disturbance, not the call. So it runs once, last, only to say where the bytes go.
// - Warm-up is long: from a cold start the bytes per call fall for ~4,000 calls (~36 KB to 23 KB for
//   the full gate) while the optimizing compiler takes the hot paths over and escape analysis
//   removes their temporary objects.
import { existsSync, readFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { SourceMap } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createCleanup } from "./cleanup.mjs";
import { echoCallers, openAuditSink, openGate, openRawClient, openTransport } from "./clients.mjs";
import { allocatedBytes } from "./heap-bytes.mjs";
import { loadModules, REPO_ROOT } from "./modules.mjs";
import { placeRunner } from "./placement.mjs";

/** Opens the one client of `kind`; resolves with what echoCallers takes for it. */
async function openClient(modules, cleanup, kind) {
  if (kind === "raw") return { raw: (await openRawClient(modules, cleanup, {})).client };
  if (kind === "transport") return { transport: (await openTransport(modules, cleanup, {})).transport };
  if (kind === "gate") {
    const gate = await openGate(modules, cleanup, openAuditSink(modules, cleanup));
    return { gates: { gate: gate.environment } };
  }
  if (kind === "gateSilent") {
    const gate = await openGate(modules, cleanup, modules.NULL_EVENT_SINK);
    return { gates: { gateSilent: gate.environment } };
  }
  throw new Error(`alloc-runner: unknown kind ${kind}; use raw, transport, gate or gateSilent.`);
}

function runner(call, concurrentCalls) {
  return {
    async sequential(count) {
      for (let index = 0; index < count; index += 1) await call();
    },
    async concurrent(count) {
      for (let done = 0; done < count; done += concurrentCalls) {
        await Promise.all(Array.from({ length: Math.min(concurrentCalls, count - done) }, () => call()));
      }
    },
  };
}

/**
 * Names profile frames' places: function name and file:line, relative to the repository or to
 * node_modules; a built package file is mapped through its source map to the TypeScript line.
 */
function createSiteNamer() {
  const maps = new Map();
  const sourceMapOf = (file) => {
    if (!maps.has(file)) {
      const mapFile = `${file}.map`;
      maps.set(file, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : null);
    }
    return maps.get(file);
  };
  return ({ functionName, url, lineNumber, columnNumber }) => {
    const name = functionName || "(anonymous)";
    if (!url) return name;
    let file = url.startsWith("file:") ? fileURLToPath(url) : url;
    let line = lineNumber + 1;
    const packaged = file.lastIndexOf("node_modules/");
    if (packaged >= 0) return `${name} ${file.slice(packaged + "node_modules/".length)}:${line}`;
    const entry = file.startsWith(REPO_ROOT)
      ? sourceMapOf(file)?.findEntry(lineNumber, columnNumber)
      : undefined;
    if (entry?.originalSource) {
      const source = entry.originalSource;
      file = resolve(dirname(file), source.startsWith("file:") ? fileURLToPath(source) : source);
      line = entry.originalLine + 1;
    }
    return `${name} ${relative(REPO_ROOT, file) || file}:${line}`;
  };
}

/** Each site's own bytes per call in one sampling heap profile of `work` (`calls` calls). */
async function profileSites(work, calls, samplingInterval) {
  const session = new Session();
  session.connect();
  try {
    await session.post("HeapProfiler.startSampling", {
      samplingInterval,
      includeObjectsCollectedByMinorGC: true,
      includeObjectsCollectedByMajorGC: true,
    });
    await work();
    const { profile } = await session.post("HeapProfiler.stopSampling");
    const siteOf = createSiteNamer();
    const sites = {};
    const pending = [profile.head];
    while (pending.length > 0) {
      const node = pending.pop();
      pending.push(...node.children);
      if (node.selfSize === 0) continue;
      const site = siteOf(node.callFrame);
      sites[site] = (sites[site] ?? 0) + node.selfSize / calls;
    }
    return sites;
  } finally {
    session.disconnect();
  }
}

async function main(kind, settings) {
  const cleanup = createCleanup();
  cleanup.installHandlers();
  try {
    const modules = await loadModules();
    const call = echoCallers(modules, await openClient(modules, cleanup, kind))[kind];
    const run = runner(call, settings.concurrentCalls);
    await run.sequential(settings.warmupCalls);
    await run.concurrent(settings.warmupCalls);
    const result = { kind, sequential: [], concurrent: [] };
    for (let round = 0; round < settings.rounds; round += 1) {
      for (const mode of ["sequential", "concurrent"]) {
        const bytes = await allocatedBytes(() => run[mode](settings.calls));
        result[mode].push(bytes / settings.calls);
      }
    }
    if (settings.sites) {
      const both = async () => {
        await run.sequential(settings.calls);
        await run.concurrent(settings.calls);
      };
      result.sites = await profileSites(both, 2 * settings.calls, settings.samplingInterval);
    }
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await cleanup.run();
  }
}

placeRunner({ measuresTime: false });
const [kind, settings] = process.argv.slice(2);
await main(kind, JSON.parse(settings ?? "{}"));
