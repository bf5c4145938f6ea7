/**
 * What code that only forwards a call's cancellation reads of it: `aborted`, `reason` and `abort`
 * listeners. An `AbortSignal` is one; so is a tool's `context.cancellation`, which needs none.
 */
export interface CancellationSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/**
 * One call's cancellation, aborted on timeout or by the caller. Its real `AbortSignal` is created
 * only when something reads `signal`: on Node 20 creating one, and listening to it, costs several
 * microseconds per call plus garbage-collector work, a large share of a governed remote call (see
 * `pnpm bench`), while a remote call only needs `aborted` and one listener.
 */
export class CallCancellation implements CancellationSignal {
  aborted = false;
  reason: unknown = undefined;
  // The first listener in a field of its own, the later ones (rare) in an array: a remote call has
  // exactly one (its transport's), and an array for it costs ~150 bytes of backing store per call
  // plus a splice's result array on removal, garbage that 100 calls in flight turn into GC time.
  #firstListener: (() => void) | undefined;
  #laterListeners: (() => void)[] | undefined;
  #controller: AbortController | undefined;

  /** An `AbortSignal` in the same state, for what needs a real one (fetch, child processes, timers). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.aborted) this.#controller.abort(this.reason);
    }
    return this.#controller.signal;
  }

  /** Calls `listener` once on abort, as an `AbortSignal` does; never for a cancellation already aborted. */
  addEventListener(type: "abort", listener: () => void): void {
    if (type !== "abort" || this.aborted) return;
    if (listener === this.#firstListener || this.#laterListeners?.includes(listener)) return;
    // Only while no later listener waits: a listener added after them must be called after them.
    if (this.#firstListener === undefined && !this.#laterListeners?.length) {
      this.#firstListener = listener;
      return;
    }
    this.#laterListeners ??= [];
    this.#laterListeners.push(listener);
  }

  /** Removes a listener added with {@link addEventListener}. */
  removeEventListener(type: "abort", listener: () => void): void {
    if (type !== "abort") return;
    if (listener === this.#firstListener) {
      this.#firstListener = undefined;
      return;
    }
    const index = this.#laterListeners?.indexOf(listener) ?? -1;
    if (index !== -1) this.#laterListeners?.splice(index, 1);
  }

  /** Aborts once: the listeners run in the order added, then the real signal (if created) aborts with the same reason. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const first = this.#firstListener;
    const later = this.#laterListeners;
    this.#firstListener = undefined;
    this.#laterListeners = undefined;
    if (first) callListener(first);
    for (const listener of later ?? []) callListener(listener);
    this.#controller?.abort(reason);
  }
}

function callListener(listener: () => void): void {
  try {
    listener();
  } catch (error) {
    // As with an AbortSignal's listener: the error surfaces as uncaught, the other listeners still run.
    queueMicrotask(() => {
      throw error;
    });
  }
}
