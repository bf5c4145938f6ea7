import { LoopError } from "./errors.js";
import type { RunChange, RunStore } from "./run-store.js";

/**
 * The one writer of a run while this process drives it: updates go out one at a time, each a
 * compare-and-set on the version the previous one produced, so concurrent calls of one turn never
 * race each other, and a run taken over by another process stops here at its next update.
 */
export class RunWriter {
  readonly #store: RunStore;
  readonly #runId: string;
  readonly #now: () => Date;
  #version: number;
  #queue: Promise<unknown> = Promise.resolve();
  #inFlight = 0;

  constructor(store: RunStore, runId: string, version: number, now: () => Date) {
    this.#store = store;
    this.#runId = runId;
    this.#version = version;
    this.#now = now;
  }

  /** Saves `change` after every earlier one; throws `run_conflict` if the run changed elsewhere. */
  commit(change: RunChange): Promise<void> {
    // Most updates find nothing in flight (one call per turn): no need to wait behind the queue.
    const next = this.#inFlight === 0 ? this.#apply(change) : this.#queue.then(() => this.#apply(change));
    this.#inFlight += 1;
    const settled = next.finally(() => {
      this.#inFlight -= 1;
    });
    // A failed update fails its own caller; later ones still wait for it, then try (and fail) too.
    this.#queue = settled.catch(() => undefined);
    return settled;
  }

  async #apply(change: RunChange): Promise<void> {
    const version = await this.#store.updateRun(this.#runId, this.#version, change, this.#now());
    if (version === undefined) {
      throw new LoopError(
        "run_conflict",
        `Run ${this.#runId} was changed by another process (version ${this.#version} is gone); this one stops driving it.`,
      );
    }
    this.#version = version;
  }
}
