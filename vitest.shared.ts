import { availableParallelism, loadavg } from "node:os";
import { defaultServerConditions } from "vite";

/** Resolve workspace packages to their TypeScript source, so tests never wait for a build. */
export const sourceConditions: string[] = ["@agent/source", ...defaultServerConditions];

/** The busiest the factor gets: past it a machine is not slow but stuck, and a test should fail. */
const MAX_LOAD_FACTOR = 6;

/**
 * How much slower than idle this machine runs now, for the bounds tests put on what they wait for
 * (a process to start, a server to record a message): runnable processes per core over the last
 * minute (os.loadavg, which counts what waits for a CPU), at least 1, at most 6.
 */
export function loadFactor(): number {
  const [lastMinute = 0] = loadavg();
  return Math.min(MAX_LOAD_FACTOR, Math.max(1, lastMinute / availableParallelism()));
}
