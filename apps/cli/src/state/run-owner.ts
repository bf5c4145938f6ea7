import { hostname } from "node:os";

/** The process that runs a `running` run: its pid on its host (a type, so it is JSON a run can record). */
export type RunOwner = {
  pid: number;
  host: string;
};

/** This process, as the owner of the runs it starts or claims. */
export function currentRunOwner(): RunOwner {
  return { pid: process.pid, host: hostname() };
}

/**
 * Whether `owner` is known to be gone: it ran on this host and no process has its pid any more.
 * Anything uncertain counts as alive (another host, a pid we may not signal, a pid reused since),
 * so a run is never taken from a process that may still be executing it.
 */
export function isRunOwnerGone(owner: RunOwner, here: RunOwner = currentRunOwner()): boolean {
  if (owner.host !== here.host) return false;
  // 0 and negative pids name process groups, not one process.
  if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0 || owner.pid === here.pid) return false;
  try {
    // Signal 0 delivers nothing; it only asks whether the process exists.
    process.kill(owner.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
