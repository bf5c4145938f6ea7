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
  // Made with its first listener: `Protocol.request` adds exactly one and never removes it, and an
  // array literal of one has room for one, where an empty array's first push allocates room for 17.
  #listeners: AbortListener[] | undefined;

  /** This handle, typed as what the SDK's `RequestOptions.signal` expects. */
  get signal(): AbortSignal {
    return this as unknown as AbortSignal;
  }

  addEventListener(type: string, listener: AbortListener | null): void {
    if (type !== "abort" || !listener) return;
    if (!this.#listeners) this.#listeners = [listener];
    else if (!this.#listeners.includes(listener)) this.#listeners.push(listener);
  }

  removeEventListener(type: string, listener: AbortListener | null): void {
    if (type === "abort") this.#listeners = this.#listeners?.filter((candidate) => candidate !== listener);
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
    const listeners = this.#listeners ?? [];
    this.#listeners = undefined;
    for (const listener of listeners) {
      if (typeof listener === "function") listener.call(this, event);
      else listener.handleEvent(event);
    }
    this.onabort?.call(this, event);
  }
}
