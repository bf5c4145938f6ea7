import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import type { RunChange, RunStore } from "./run-store.js";

/**
 * The one writer of a run while this process drives it: updates go out one at a time, each a
 * compare-and-set on the version the previous one produced, so concurrent calls of one turn never
 * race each other, and a run taken over by another process stops here at its next update.
 *
 * A store failure stops it: that update and every later one are kept, unsent (sending a later one
 * alone would save a pending list without the call records and transcript of the failed one), until
 * {@link RunWriter.salvage} tries once to save them all together with how the run ended.
 */
export class RunWriter {
  readonly #store: RunStore;
  readonly #runId: string;
  /** The environment's clock; without one the store takes its own time (no Date made per update here). */
  readonly #now: (() => Date) | undefined;
  #version: number;
  /** The latest update, the one a new update waits behind while any is in flight. */
  #tail: Promise<void> = Promise.resolve();
  /** Updates committed and not yet applied (waiting in the queue or for the store). */
  #inFlight = 0;
  /** The store failure that stopped this writer, once one did. */
  #failure: unknown;
  #failed = false;
  /** What was not saved since the failure, in order. */
  readonly #unsaved: RunChange[] = [];
  /** Set once {@link RunWriter.salvage} ran: nothing more is saved from this process. */
  #closed = false;

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
   * Saves `change` after every earlier one. A failure, `run_conflict` when the run changed
   * elsewhere, is always a rejected promise, never a throw.
   */
  commit(change: RunChange, at?: Date): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closedError());
    this.#inFlight += 1;
    // Most updates find nothing in flight (one call per turn): no need to wait behind the queue. A
    // failed update fails its own caller; later ones still wait for it, then are kept unsent too.
    const applied = this.#inFlight === 1 ? this.#apply(change, at) : this.#queued(change, at);
    this.#tail = applied;
    return applied;
  }

  /**
   * After the driver stopped on a failure: once every update in flight settled, saves in one update
   * everything a store failure left unsaved, then `final(...)` (how the run ended, built now, from the
   * run as it stands). Returns whether that was saved. Every later commit is refused.
   */
  async salvage(final: () => RunChange): Promise<boolean> {
    await this.#tail.catch(() => undefined);
    this.#closed = true;
    const change = mergeChanges([...this.#unsaved, final()]);
    try {
      const version = await this.#store.updateRun(this.#runId, this.#version, change, this.#now?.());
      if (version === undefined) return false;
      this.#version = version;
      this.#unsaved.length = 0;
      return true;
    } catch {
      return false;
    }
  }

  // Not an async function: one `then` on the store's promise, no second promise around it.
  #apply(change: RunChange, at: Date | undefined): Promise<void> {
    if (this.#failed || this.#closed) {
      this.#inFlight -= 1;
      if (this.#closed) return Promise.reject(this.#closedError());
      this.#unsaved.push(change);
      return Promise.reject(this.#failure);
    }
    let update: Promise<number | undefined>;
    try {
      update = this.#store.updateRun(this.#runId, this.#version, change, at ?? this.#now?.());
    } catch (error) {
      // A store that throws rather than rejects (against its contract) fails the same way.
      update = Promise.reject(error);
    }
    return Promise.resolve(update).then(this.#applied, (error: unknown) => this.#storeFailed(change, error));
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

  #storeFailed(change: RunChange, error: unknown): never {
    this.#inFlight -= 1;
    if (!this.#failed) {
      this.#failed = true;
      this.#failure = error;
    }
    this.#unsaved.push(change);
    throw error;
  }

  #queued(change: RunChange, at: Date | undefined): Promise<void> {
    const apply = (): Promise<void> => this.#apply(change, at);
    return this.#tail.then(apply, apply);
  }

  #closedError(): LoopError {
    return new LoopError(
      LOOP_ERROR_CODES.runConflict,
      `Run ${this.#runId} is no longer driven by this process (it stopped on a failure); nothing more is saved from it.`,
    );
  }
}

/** One update with the effect of `changes` applied in order: later header fields win, lists append. */
function mergeChanges(changes: readonly RunChange[]): RunChange {
  const set: NonNullable<RunChange["set"]> = {};
  const appendMessages: NonNullable<RunChange["appendMessages"]>[number][] = [];
  const appendCalls: NonNullable<RunChange["appendCalls"]>[number][] = [];
  for (const change of changes) {
    Object.assign(set, change.set);
    if (change.appendMessages) appendMessages.push(...change.appendMessages);
    if (change.appendCalls) appendCalls.push(...change.appendCalls);
  }
  const merged: RunChange = { set };
  if (appendMessages.length > 0) merged.appendMessages = appendMessages;
  if (appendCalls.length > 0) merged.appendCalls = appendCalls;
  return merged;
}
