import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import type { RunChange, RunStore } from "./run-store.js";

/**
 * The one writer of a run while this process drives it: updates go out one at a time, each a
 * compare-and-set on the version the previous one produced, so concurrent calls of one turn never
 * race each other, and a run taken over by another process stops here at its next update.
 */
export class RunWriter {
  readonly #store: RunStore;
  readonly #runId: string;
  /** The environment's clock; without one the store takes its own time (no Date made per update here). */
  readonly #now: (() => Date) | undefined;
  #version: number;
  /** The latest update that went asynchronous, the one a new update waits behind while any is in flight. */
  #tail: Promise<void> = Promise.resolve();
  /** Updates committed and not yet applied (waiting in the queue or for the store). */
  #inFlight = 0;

  /** The run's version after the last update this writer applied. */
  get version(): number {
    return this.#version;
  }

  constructor(store: RunStore, runId: string, version: number, now: (() => Date) | undefined) {
    this.#store = store;
    this.#runId = runId;
    this.#version = version;
    this.#now = now;
  }

  /**
   * Saves `change` after every earlier one. Returns `undefined` when the store applied it at once
   * (nothing to wait for), else a promise of it; a failure, `run_conflict` when the run changed
   * elsewhere, is always a rejected promise, never a throw.
   */
  commit(change: RunChange, at?: Date): Promise<void> | undefined {
    this.#inFlight += 1;
    // Most updates find nothing in flight (one call per turn): no need to wait behind the queue. A
    // failed update fails its own caller; later ones still wait for it, then try (and fail) too.
    const applied = this.#inFlight === 1 ? this.#apply(change, at) : this.#queued(change, at);
    if (applied !== undefined) this.#tail = applied;
    return applied;
  }

  // Not an async function: a store that answers at once costs no promise here, one that answers
  // later one `then`.
  #apply(change: RunChange, at: Date | undefined): Promise<void> | undefined {
    let update: number | undefined | Promise<number | undefined>;
    try {
      update = this.#store.updateRun(this.#runId, this.#version, change, at ?? this.#now?.());
    } catch (error) {
      update = Promise.reject(error);
    }
    if (typeof update !== "number" && update !== undefined) {
      return Promise.resolve(update).then(this.#applied, this.#failed);
    }
    try {
      this.#applied(update);
    } catch (error) {
      return Promise.reject(error);
    }
    return undefined;
  }

  readonly #applied = (version: number | undefined): void => {
    this.#inFlight -= 1;
    if (version === undefined) {
      throw new LoopError(
        LOOP_ERROR_CODES.runConflict,
        `Run ${this.#runId} was changed by another process (version ${this.#version} is gone); this one stops driving it.`,
      );
    }
    this.#version = version;
  };

  readonly #failed = (error: unknown): never => {
    this.#inFlight -= 1;
    throw error;
  };

  #queued(change: RunChange, at: Date | undefined): Promise<void> {
    const apply = (): Promise<void> | undefined => this.#apply(change, at);
    return this.#tail.then(apply, apply);
  }
}
