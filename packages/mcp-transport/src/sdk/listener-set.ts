/**
 * The subscribers of one kind of transport news (notifications, the end of the connection,
 * out-of-band problems). A listener that throws never breaks the transport or the other listeners,
 * and one that unsubscribes (or subscribes another) while being told changes nothing for this round.
 */
export class ListenerSet<T> {
  readonly #listeners = new Set<(value: T) => void>();

  /** Subscribes `listener`; returns the unsubscribe function. */
  add(listener: (value: T) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Tells every current listener, each at most once. */
  emit(value: T): void {
    for (const listener of [...this.#listeners]) callSafely(listener, value);
  }

  /** Tells every current listener and unsubscribes them all: for news that comes once. */
  emitOnce(value: T): void {
    const listeners = [...this.#listeners];
    this.#listeners.clear();
    for (const listener of listeners) callSafely(listener, value);
  }
}

/** Calls `listener`, swallowing what it throws: a subscriber's bug must not break the transport. */
export function callSafely<T>(listener: (value: T) => void, value: T): void {
  try {
    listener(value);
  } catch {}
}
