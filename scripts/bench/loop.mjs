// The agent loop's own cost per turn: startRun (saving the run after the model's turn and after each
// call, events, the result cap) against a bare loop that calls the same model and executeToolCall
// directly and keeps its transcript in an array (the loops are in loop-kinds.mjs).
//
// How it is measured, and why (changed from one process running all kinds, median of 7 runs of each):
// - Each kind runs in a process of its own (loop-runner.mjs), so the JIT state is the one a real
//   agent process has. In one process the agent loop and the bare loop share executeToolCall, whose
//   inline caches then see both; the bare loop's median alternated between ~3.3 and ~6 µs per turn.
// - Each process warms up first (`warmups` runs): on a loaded machine the optimizing compiler,
//   which runs on a background thread, took 10 to 30 runs to finish with the agent loop, whose
//   first runs were 5 to 20 times slower than its steady state.
// - A process's figure is its total CPU time over `runs` runs of `turns` turns, divided by the
//   turns: the garbage collection that a loop's allocations and what it keeps cause is charged to
//   the loop that caused it (a median of single 1,000-turn runs, 5 ms each, was bimodal instead: a
//   scavenge of ~1-5 ms fell into some runs and not into others). CPU time rather than wall time:
//   nothing in these loops waits (scripted model, local tool), so on an idle machine the two are the
//   same, and on a shared one CPU time leaves out the time other processes had the core.
// - Processes take turns in every round, in a rotating order, so drift on the machine (frequency,
//   other load) is shared; the figure is the median over rounds, so a burst of load in one process
//   moves nothing. Wall time is reported beside it, as context.
// - The saves' cost per turn is the agent loop's on each store less the discarding store's:
//   in memory, SQLite (the CLI's, a commit per save) and PostgreSQL (a throwaway cluster started
//   here on loopback, as the store's tests do; skipped, with the reason printed, where it cannot
//   start). The durable stores run fewer turns and runs (a save waits for a commit, ~0.1-2 ms), and
//   their CPU figure is this process's only: PostgreSQL's own work is in its server's processes, so
//   the wall time per turn is given beside it.
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runJsonProcess } from "./json-process.mjs";
import { REPO_ROOT } from "./modules.mjs";
import { startingOnServerCpu } from "./placement.mjs";
import { median } from "./stats.mjs";

const DEFAULTS = { turns: 1000, rounds: 11, runs: 15, warmups: 20 };
const RUNNER = fileURLToPath(new URL("./loop-runner.mjs", import.meta.url));
// Turns, warm-up runs and timed runs of the durable stores' processes, when not the defaults'.
const DURABLE = { sqlite: { warmups: 2, runs: 3 }, postgres: { turns: 50, warmups: 1, runs: 2 } };

/** A throwaway PostgreSQL cluster for the `postgres` loop, or why there is none. */
async function startPostgres(cleanup, progress) {
  progress("loop: starting a throwaway PostgreSQL server on loopback");
  try {
    const testing = await import(
      pathToFileURL(join(REPO_ROOT, "packages/store-postgres/dist/testing/index.js")).href
    );
    const cluster = await startingOnServerCpu(() => testing.startThrowawayCluster());
    cleanup.add(() => cluster.stop());
    return { url: cluster.url, stop: () => cluster.stop() };
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Median over rounds of each kind's CPU milliseconds per turn (a process's total over its turns),
 * and of its wall milliseconds per turn.
 */
export async function benchLoop(cleanup, progress, options = {}) {
  const settings = { ...DEFAULTS, ...options };
  const postgres = await startPostgres(cleanup, progress);
  if (postgres.skipped) progress(`loop: PostgreSQL skipped: ${postgres.skipped}`);
  const names = ["agent", "sqlite", ...(postgres.url ? ["postgres"] : []), "unsaved", "bare"];
  const perTurn = Object.fromEntries(names.map((name) => [name, []]));
  const wallPerTurn = Object.fromEntries(names.map((name) => [name, []]));
  const total = (values) => values.reduce((sum, ms) => sum + ms, 0);
  for (let round = 0; round < settings.rounds; round += 1) {
    progress(
      `loop: round ${round + 1}/${settings.rounds}: a process per loop, ${settings.warmups} + ${settings.runs} runs of ${settings.turns} turns each`,
    );
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const kind of order) {
      const { turns, warmups, runs } = { ...settings, ...DURABLE[kind] };
      const env = kind === "postgres" ? { AGENT_BENCH_POSTGRES_URL: postgres.url } : {};
      const { cpu, wall } = await runJsonProcess(cleanup, RUNNER, [kind, turns, warmups, runs], env);
      perTurn[kind].push(total(cpu) / (cpu.length * turns));
      wallPerTurn[kind].push(total(wall) / (wall.length * turns));
    }
  }
  await postgres.stop?.();
  const unsavedPerTurnMs = median(perTurn.unsaved);
  const unsavedWallPerTurnMs = median(wallPerTurn.unsaved);
  // The two saves a turn on each store: CPU and wall time above the discarding store's.
  const saves = Object.fromEntries(
    [
      ["memory", "agent"],
      ["sqlite", "sqlite"],
      ["postgres", "postgres"],
    ]
      .filter(([, kind]) => perTurn[kind].length > 0)
      .map(([store, kind]) => [
        store,
        {
          cpuMs: median(perTurn[kind]) - unsavedPerTurnMs,
          wallMs: median(wallPerTurn[kind]) - unsavedWallPerTurnMs,
        },
      ]),
  );
  const agentPerTurnMs = median(perTurn.agent);
  const barePerTurnMs = median(perTurn.bare);
  return {
    agentPerTurnMs,
    barePerTurnMs,
    unsavedPerTurnMs,
    saves,
    postgresSkipped: postgres.skipped,
    overheadPerTurnMs: agentPerTurnMs - barePerTurnMs,
    agentWallPerTurnMs: median(wallPerTurn.agent),
    bareWallPerTurnMs: median(wallPerTurn.bare),
    turns: settings.turns,
  };
}
