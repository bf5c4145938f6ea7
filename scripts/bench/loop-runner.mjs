// One process of the agent-loop benchmark: `node loop-runner.mjs <kind> <turns> <warmups> <runs>` runs
// one loop of loop-kinds.mjs, warm-up runs first, and prints the wall and CPU milliseconds of each timed
// run as JSON on stdout. A process runs one kind only, so the JIT and the heap are that loop's, as in a real agent
// process (run together, the agent loop and the bare loop share executeToolCall's inline caches).
// With a fifth argument `alloc` (the allocation suite's mode), it prints instead the bytes each timed
// run allocated on the heap per turn (heap-bytes.mjs). Kind `postgres` reads the database's URL from
// AGENT_BENCH_POSTGRES_URL (a throwaway cluster the parent started).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allocatedBytes } from "./heap-bytes.mjs";
import { createWorld, LOOP_KINDS } from "./loop-kinds.mjs";
import { loadLoopModules } from "./modules.mjs";
import { placeRunner } from "./placement.mjs";

const [kind, turns, warmups, runs, measure = "time"] = process.argv.slice(2);
placeRunner({ measuresTime: measure === "time" });
const loop = LOOP_KINDS[kind];
if (!loop) throw new Error(`loop-runner: unknown kind ${kind}; use ${Object.keys(LOOP_KINDS).join(", ")}.`);
const modules = await loadLoopModules();
const world = createWorld(modules);
const closeStore = await openRunStore(kind, world);
for (let index = 0; index < Number(warmups); index += 1) await loop(modules, world, Number(turns));
if (measure === "alloc") {
  const bytesPerTurn = [];
  for (let index = 0; index < Number(runs); index += 1) {
    bytesPerTurn.push((await allocatedBytes(() => loop(modules, world, Number(turns)))) / Number(turns));
  }
  process.stdout.write(`${JSON.stringify({ kind, bytesPerTurn })}\n`);
} else {
  const wall = [];
  const cpu = [];
  for (let index = 0; index < Number(runs); index += 1) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await loop(modules, world, Number(turns));
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
  }
  process.stdout.write(`${JSON.stringify({ kind, wall, cpu })}\n`);
}
await closeStore();

/** Opens the durable run store `kind` saves to as `world.runs`; returns what closes it. */
async function openRunStore(kind, world) {
  if (kind === "sqlite") {
    // The CLI's SQLite state in a temp folder of this process, removed when it exits.
    const { SqliteStateStore } = await import(
      new URL("../../apps/cli/dist/state/index.js", import.meta.url).href
    );
    const folder = mkdtempSync(join(tmpdir(), "agent-bench-loop-"));
    const state = SqliteStateStore.open(folder);
    world.runs = state.agentRuns;
    const close = () => {
      state.close();
      rmSync(folder, { recursive: true, force: true });
    };
    process.once("exit", close);
    return async () => {
      process.off("exit", close);
      close();
    };
  }
  if (kind === "postgres") {
    const url = process.env.AGENT_BENCH_POSTGRES_URL;
    if (!url) throw new Error("loop-runner: kind postgres needs AGENT_BENCH_POSTGRES_URL.");
    const { openPostgresState } = await import(
      new URL("../../packages/store-postgres/dist/index.js", import.meta.url).href
    );
    const state = await openPostgresState({ url });
    world.runs = state.runs;
    return () => state.close();
  }
  return async () => {};
}
