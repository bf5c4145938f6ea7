// The agent loop's own cost per turn: startRun (saving the run after the model's turn and after each
// call, events, the result cap) against a bare loop that calls the same model and executeToolCall
// directly and keeps its transcript in an array (the loops are in loop-kinds.mjs).
//
// How it is measured, and why (changed from one process running all kinds, median of 7 runs):
// - Each kind runs in a process of its own (loop-runner.mjs), so the JIT state is the one a real
//   agent process has. In one process the agent loop and the bare loop share executeToolCall, whose
//   inline caches then see both; the bare loop's median alternated between ~3.3 and ~6 µs per turn.
// - A process's figure is its total time over `runs` runs of `turns` turns, divided by the turns:
//   the garbage collection that a run's allocations and what it keeps cause is charged to the loop
//   that caused it. A median of single 1,000-turn runs (5 ms each) was bimodal instead: a scavenge
//   (~1-5 ms) fell into some runs and not into others.
// - Processes take turns in every round, in a rotating order, so drift on the machine (frequency,
//   other load) is shared; the figure is the median over rounds, so a burst of load in one process
//   moves nothing.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median } from "./stats.mjs";

const DEFAULTS = { turns: 1000, rounds: 9, runs: 20, warmups: 3 };
const RUNNER = fileURLToPath(new URL("./loop-runner.mjs", import.meta.url));

/** Runs one kind in a child process; resolves with its milliseconds per timed run. */
function runProcess(cleanup, kind, settings) {
  return new Promise((resolve, reject) => {
    const args = [RUNNER, kind, settings.turns, settings.warmups, settings.runs].map(String);
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
    const forget = cleanup.add(() => child.kill("SIGKILL"), child.pid);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      void forget();
      if (code !== 0) reject(new Error(`loop-runner ${kind} exited with ${code}: ${stderr.trim()}`));
      else resolve(JSON.parse(stdout).samples);
    });
  });
}

/** Median over rounds of each kind's milliseconds per turn (a process's total time over its turns). */
export async function benchLoop(cleanup, progress, options = {}) {
  const settings = { ...DEFAULTS, ...options };
  const names = ["agent", "unsaved", "bare"];
  const perTurn = { agent: [], unsaved: [], bare: [] };
  for (let round = 0; round < settings.rounds; round += 1) {
    progress(
      `loop: round ${round + 1}/${settings.rounds}: a process per loop, ${settings.runs} runs of ${settings.turns} turns each`,
    );
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const kind of order) {
      const samples = await runProcess(cleanup, kind, settings);
      const total = samples.reduce((sum, ms) => sum + ms, 0);
      perTurn[kind].push(total / (samples.length * settings.turns));
    }
  }
  const agentPerTurnMs = median(perTurn.agent);
  const barePerTurnMs = median(perTurn.bare);
  return {
    agentPerTurnMs,
    barePerTurnMs,
    unsavedPerTurnMs: median(perTurn.unsaved),
    overheadPerTurnMs: agentPerTurnMs - barePerTurnMs,
    turns: settings.turns,
  };
}
