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
import { fileURLToPath } from "node:url";
import { runJsonProcess } from "./json-process.mjs";
import { median } from "./stats.mjs";

const DEFAULTS = { turns: 1000, rounds: 11, runs: 15, warmups: 20 };
const RUNNER = fileURLToPath(new URL("./loop-runner.mjs", import.meta.url));

/**
 * Median over rounds of each kind's CPU milliseconds per turn (a process's total over its turns),
 * and of its wall milliseconds per turn.
 */
export async function benchLoop(cleanup, progress, options = {}) {
  const settings = { ...DEFAULTS, ...options };
  const names = ["agent", "sqlite", "unsaved", "bare"];
  const perTurn = Object.fromEntries(names.map((name) => [name, []]));
  const wallPerTurn = Object.fromEntries(names.map((name) => [name, []]));
  const total = (values) => values.reduce((sum, ms) => sum + ms, 0);
  for (let round = 0; round < settings.rounds; round += 1) {
    progress(
      `loop: round ${round + 1}/${settings.rounds}: a process per loop, ${settings.warmups} + ${settings.runs} runs of ${settings.turns} turns each`,
    );
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const kind of order) {
      // SQLite commits each save to disk (~1 ms wall a turn): fewer runs keep the suite short.
      const [warmups, runs] = kind === "sqlite" ? [2, 3] : [settings.warmups, settings.runs];
      const args = [kind, settings.turns, warmups, runs];
      const { cpu, wall } = await runJsonProcess(cleanup, RUNNER, args);
      perTurn[kind].push(total(cpu) / (cpu.length * settings.turns));
      wallPerTurn[kind].push(total(wall) / (wall.length * settings.turns));
    }
  }
  const agentPerTurnMs = median(perTurn.agent);
  const barePerTurnMs = median(perTurn.bare);
  return {
    agentPerTurnMs,
    barePerTurnMs,
    unsavedPerTurnMs: median(perTurn.unsaved),
    sqlitePerTurnMs: median(perTurn.sqlite),
    overheadPerTurnMs: agentPerTurnMs - barePerTurnMs,
    agentWallPerTurnMs: median(wallPerTurn.agent),
    bareWallPerTurnMs: median(wallPerTurn.bare),
    turns: settings.turns,
  };
}
