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

  constructor(store: RunStore, runId: string, version: number, now: () => Date) {
    this.#store = store;
    this.#runId = runId;
    this.#version = version;
    this.#now = now;
  }

  /** Saves `change` after every earlier one; throws `run_conflict` if the run changed elsewhere. */
  commit(change: RunChange): Promise<void> {
    const next = this.#queue.then(async () => {
      const version = await this.#store.updateRun(this.#runId, this.#version, change, this.#now());
      if (version === undefined) {
        throw new LoopError(
          "run_conflict",
          `Run ${this.#runId} was changed by another process (version ${this.#version} is gone); this one stops driving it.`,
        );
      }
      this.#version = version;
    });
    // A failed update fails its own caller; later ones still wait for it, then try (and fail) too.
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
