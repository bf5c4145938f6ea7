// Where the bench's processes run. On a 2-core VM a sequential round trip to a server that the
// scheduler put on the client's CPU skips the cross-CPU wake-up (23 µs against 66 µs for the raw SDK
// here), and in a suite with no concurrent work the placement sticks: two server processes compared
// in one run then differ by where the scheduler put them, not by what they do (the sandbox suite's
// echo row read 1.12x and 1.80x in two runs back to back). So, where it can, the bench pins its main
// thread to one CPU and starts every server on another (`taskset`): the placement that a client and
// a server which are both busy get anyway. The placement goes through the environment, so the
// processes the bench starts for its own measurements (json-process.mjs) take the same one.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { platform } from "node:os";

// The placement as JSON ({ client, server, all }: CPU lists as taskset takes them); unset: none.
const PLACEMENT_VARIABLE = "AGENT_BENCH_PLACEMENT";
const TASKSET = "/usr/bin/taskset";

/** Runs taskset with `args` on this process; why it could not, or undefined. */
function taskset(args) {
  const ran = spawnSync(TASKSET, [...args, String(process.pid)], { stdio: "ignore" });
  if (ran.error) return `${TASKSET} could not run (${ran.error.code ?? ran.error.message})`;
  return ran.status === 0 ? undefined : `${TASKSET} ${args.join(" ")} exited ${ran.status}`;
}

/**
 * Pins this process's main thread to `cpu`. V8's helper threads, started before, stay free; a
 * thread or process the main thread starts later inherits `cpu`.
 */
function pinMainThread(cpu) {
  return taskset(["-p", "-c", cpu]);
}

/** The CPUs this process may run on ("0-3,6" in /proc/self/status), each as a number. */
function allowedCpus() {
  const list = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "";
  return list.split(",").flatMap((part) => {
    const [first, last = first] = part.split("-").map(Number);
    return Array.from({ length: last - first + 1 }, (_, index) => first + index);
  });
}

function placement() {
  const value = process.env[PLACEMENT_VARIABLE];
  return value ? JSON.parse(value) : undefined;
}

/**
 * Pins this process's main thread to the first CPU it may use and has every server started on the
 * second from now on, unless `pin` is false or this machine cannot (not Linux, one CPU, no
 * taskset). Returns the report's line about it.
 */
export function placeProcesses({ pin }) {
  delete process.env[PLACEMENT_VARIABLE];
  const unpinned = (why) =>
    `placement: not pinned (${why}); the scheduler places the client and every server`;
  if (!pin) return unpinned("--unpinned");
  if (platform() !== "linux") return unpinned(`taskset is Linux's, this is ${platform()}`);
  const cpus = allowedCpus();
  if (cpus.length < 2) return unpinned("one CPU");
  const chosen = { client: String(cpus[0]), server: String(cpus[1]), all: cpus.join(",") };
  const failure = pinMainThread(chosen.client);
  if (failure) return unpinned(failure);
  process.env[PLACEMENT_VARIABLE] = JSON.stringify(chosen);
  return (
    `placement: the bench's main thread on CPU ${chosen.client}, every server on CPU ${chosen.server} ` +
    "(taskset; --unpinned leaves both to the scheduler)"
  );
}

/**
 * For a process the bench started to measure in (a runner: a child of the pinned main thread, so
 * confined whole to the client's CPU): frees its threads again and, when it measures time, pins its
 * main thread alone, as the bench's own is. One that counts bytes stays free, so that the runners
 * run side by side. Does nothing when the bench did not pin.
 */
export function placeRunner({ measuresTime }) {
  const chosen = placement();
  if (!chosen) return;
  const failure =
    taskset(["-a", "-p", "-c", chosen.all]) ?? (measuresTime ? pinMainThread(chosen.client) : undefined);
  if (failure) throw new Error(`placement: ${failure}`);
}

/** `spec` (a command and its args) started on the servers' CPU, when {@link placeProcesses} pinned. */
export function onServerCpu(spec) {
  const chosen = placement();
  if (!chosen) return spec;
  return { ...spec, command: TASKSET, args: ["-c", chosen.server, spec.command, ...(spec.args ?? [])] };
}

/**
 * Runs `start`, which spawns a server whose command is not ours to wrap (a PostgreSQL cluster), with
 * this process's main thread on the servers' CPU, so that what it spawns inherits that CPU; then
 * puts the main thread back. Nothing else of the bench runs meanwhile.
 */
export async function startingOnServerCpu(start) {
  const chosen = placement();
  if (!chosen) return start();
  const failure = pinMainThread(chosen.server);
  if (failure) throw new Error(`placement: ${failure}`);
  let back;
  let started;
  try {
    started = await start();
  } finally {
    back = pinMainThread(chosen.client);
  }
  // Else the rest of the run would measure from the servers' CPU while the report says otherwise.
  if (back) throw new Error(`placement: ${back}`);
  return started;
}
