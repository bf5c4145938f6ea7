/**
 * Sends `signal` to the process group led by `pid` (the server and every descendant that stayed in
 * its group), falling back to the process alone where groups are unavailable. False if nothing got it.
 */
export function signalProcessGroup(pid: number, signal: NodeJS.Signals): boolean {
  if (process.platform !== "win32") {
    try {
      process.kill(-pid, signal);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
      // EPERM on the group (a member changed its credentials): at least reach the leader.
    }
  }
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Describes how a process ended, e.g. `exited with code 1` or `was killed by SIGKILL`. */
export function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal) return `was killed by ${signal}`;
  return code === null ? "exited" : `exited with code ${code}`;
}
