import { setTimeout as sleep } from "node:timers/promises";
import type { RunStore } from "@agent/loop";
import { StorePostgresError } from "@agent/store-postgres";

// Ten seconds: a database restart, not an outage.
const RETRIES = 20;
const RETRY_DELAY_MS = 500;

/**
 * Runs `change`, and again while the shared database is unreachable (`store_unavailable`), for as
 * long as a restart takes; then throws what it last threw. A run's write that gives up too early
 * could lose the outcome of a call that ran.
 */
export async function whileUnavailable<T>(change: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await change();
    } catch (error) {
      const unavailable = StorePostgresError.isInstance(error) && error.code === "store_unavailable";
      if (!unavailable || attempt >= RETRIES) throw error;
      await sleep(RETRY_DELAY_MS);
    }
  }
}

/**
 * `store` with every method retried {@link whileUnavailable}: the agent runs of a PostgreSQL state
 * get the same bounded retry as the one-call runs of `agent call`.
 */
export function retryingRunStore(store: RunStore): RunStore {
  return {
    createRun: (state) => whileUnavailable(() => store.createRun(state)),
    loadRun: (runId) => whileUnavailable(() => store.loadRun(runId)),
    listRuns: (options) => whileUnavailable(() => store.listRuns(options)),
    updateRun: (runId, expectedVersion, change, now) =>
      whileUnavailable(() => store.updateRun(runId, expectedVersion, change, now)),
  };
}
