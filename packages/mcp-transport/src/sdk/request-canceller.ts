// DO NOT CHANGE CASUALLY: a stand-in for AbortSignal that relies on exactly which members the SDK's
// Protocol.request reads. An SDK upgrade that reads more of it would break cancellation silently;
// the cancellation tests of this package are what catch that.
type AbortListener = ((event: Event) => void) | { handleEvent(event: Event): void };

/**
 * The `signal` handed to the SDK's `Protocol.request` for one request: aborting it makes the SDK drop
 * the request and send `notifications/cancelled`. It is not a real AbortSignal because on Node 20
 * creating one costs several microseconds plus garbage-collector work per request (Node 20 sets its
 * prototype after construction), a measurable share of a stdio round trip (see `pnpm bench`).
 * `Protocol.request` reads only `aborted`, `reason`, `throwIfAborted()` and an `abort` listener; the
 * cancellation tests of this package hold the SDK to that on every upgrade.
 */
export class RequestCanceller {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((event: Event) => void) | null = null;
  // Protocol.request adds one listener per request and never removes it: it gets a field, and only
  // further ones an array (an array per request was ~150 bytes of backing store, garbage by the answer).
  #firstListener: AbortListener | undefined;
  #laterListeners: AbortListener[] | undefined;

  /** This handle, typed as what the SDK's `RequestOptions.signal` expects. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  addEventListener(type: string, listener: AbortListener | null): void {
    if (type !== "abort" || !listener) return;
    if (listener === this.#firstListener || this.#laterListeners?.includes(listener)) return;
    // The field only while no later listener waits, so that listeners run in the order added.
    if (this.#firstListener === undefined && !this.#laterListeners?.length) {
      this.#firstListener = listener;
      return;
    }
    this.#laterListeners ??= [];
    this.#laterListeners.push(listener);
  }

  removeEventListener(type: string, listener: AbortListener | null): void {
    if (type !== "abort") return;
    if (listener === this.#firstListener) this.#firstListener = undefined;
    else this.#laterListeners = this.#laterListeners?.filter((candidate) => candidate !== listener);
  }

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  /** Aborts once, calling every listener (and `onabort`) with an `abort` event, as AbortController does. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const event = new Event("abort");
    const first = this.#firstListener;
    const later = this.#laterListeners;
    this.#firstListener = undefined;
    this.#laterListeners = undefined;
    if (first) this.#dispatch(first, event);
    for (const listener of later ?? []) this.#dispatch(listener, event);
    this.onabort?.call(this, event);
  }

  #dispatch(listener: AbortListener, event: Event): void {
    if (typeof listener === "function") listener.call(this, event);
    else listener.handleEvent(event);
  }
}
