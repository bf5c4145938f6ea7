import { loadFactor } from "../../../vitest.shared.js";

// The end-to-end tests wait on processes (the CLI, its servers, bubblewrap), and what those take
// grows with the machine's load: on a busy 2-core machine a CLI start that takes one second idle
// takes ten. Every limit below is a bound on a hang, never a timing assertion, and each derives from
// what it waits for, scaled by how busy the machine is at the moment the wait begins (loadFactor).

/** How long one CLI run may take on an idle machine: far past any real command of the tests. */
const IDLE_RUN_LIMIT_MS = 30_000;

/** The most sequential CLI runs a test of the default timeout waits for (more take `E2E_TIMEOUT_MS * n`). */
const RUNS_PER_TEST = 4;

/** How long the leftover check waits for processes to go away, idle. */
const IDLE_EXIT_GRACE_MS = 3_000;

/** The bound on one CLI run starting now: `idleMs` (default 30 s) scaled by {@link loadFactor}. */
export function runLimitMs(idleMs: number = IDLE_RUN_LIMIT_MS): number {
  return Math.round(idleMs * loadFactor());
}

/** The bound on waiting for processes to exit after a test, starting now. */
export function exitGraceMs(): number {
  return Math.round(IDLE_EXIT_GRACE_MS * loadFactor());
}

/**
 * A test's timeout: the runs it waits for, each bounded by {@link runLimitMs}, plus the leftover
 * check. Read when the test file is collected; the per-run bounds follow the load as it changes.
 */
export function testTimeoutMs(runs: number = RUNS_PER_TEST): number {
  return runs * runLimitMs() + exitGraceMs();
}
