// Where the bench's processes run. On a 2-core VM a sequential round trip to a server that the
// scheduler put on the client's CPU skips the cross-CPU wake-up (23 µs against 66 µs for the raw SDK
// here), and in a suite with no concurrent work the placement sticks: two server processes compared
// in one run then differ by where the scheduler put them, not by what they do (the sandbox suite's
// echo row read 1.12x and 1.80x in two runs back to back). So, where it can, the bench pins its main
// thread to one CPU and starts every server on another (`taskset`): the placement that a client and
// a server which are both busy get anyway. The servers' CPU goes through the environment, so the
// processes the bench starts for its own measurements (json-process.mjs, on the bench's CPU as
// children of its main thread) start their servers the same way.
import { spawnSync } from "node:child_process";
import { availableParallelism, platform } from "node:os";

// The CPU every server is started on; unset: the scheduler places them.
const SERVER_CPU_VARIABLE = "AGENT_BENCH_SERVER_CPU";
const CLIENT_CPU = "0";
const SERVER_CPU = "1";
const TASKSET = "/usr/bin/taskset";

/**
 * Pins this process's main thread to `cpu` (V8's helper threads, started before, stay free; a
 * thread or process the main thread starts later inherits `cpu`). Returns why it could not, if so.
 */
function pinMainThread(cpu) {
  const pinned = spawnSync(TASKSET, ["-p", "-c", cpu, String(process.pid)], { stdio: "ignore" });
  return pinned.error ? `${TASKSET} is missing` : pinned.status === 0 ? undefined : `${TASKSET} failed`;
}

/**
 * Pins this process's main thread to CPU 0 and has every server started on CPU 1 from now on, unless
 * `pin` is false or this machine cannot (not Linux, one CPU, no taskset). Returns the report's line
 * about it.
 */
export function placeProcesses({ pin }) {
  const free = (why) => `placement: not pinned (${why}); the scheduler places the client and every server`;
  if (!pin) return free("--unpinned");
  if (platform() !== "linux") return free(`taskset is Linux's, this is ${platform()}`);
  if (availableParallelism() < 2) return free("one CPU");
  const failure = pinMainThread(CLIENT_CPU);
  if (failure) return free(failure);
  process.env[SERVER_CPU_VARIABLE] = SERVER_CPU;
  return (
    `placement: the bench's main thread on CPU ${CLIENT_CPU}, every server on CPU ${SERVER_CPU} ` +
    "(taskset; --unpinned leaves both to the scheduler)"
  );
}

/** `spec` (a command and its args) started on the servers' CPU, when {@link placeProcesses} pinned. */
export function onServerCpu(spec) {
  const cpu = process.env[SERVER_CPU_VARIABLE];
  if (!cpu) return spec;
  return { ...spec, command: TASKSET, args: ["-c", cpu, spec.command, ...(spec.args ?? [])] };
}

/**
 * Runs `start`, which spawns a server whose command is not ours to wrap (a PostgreSQL cluster), with
 * this process's main thread on the servers' CPU, so that what it spawns inherits that CPU; then
 * puts the main thread back. Nothing else of the bench runs meanwhile.
 */
export async function startingOnServerCpu(start) {
  const cpu = process.env[SERVER_CPU_VARIABLE];
  if (!cpu) return start();
  pinMainThread(cpu);
  try {
    return await start();
  } finally {
    pinMainThread(CLIENT_CPU);
  }
}
