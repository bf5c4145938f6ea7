/** What {@link untilAborted} resolves with when the signal wins. */
export const ABORTED: unique symbol = Symbol("aborted");

/**
 * Resolves with `promise`'s value, or with {@link ABORTED} as soon as `signal` aborts. The openai
 * SDK sleeps through its retry backoff (as long as `retry-after` says) without looking at the
 * signal; a cancelled request must not wait for that. The losing promise's outcome is dropped.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(ABORTED);
  }
  return new Promise<T | typeof ABORTED>((resolve, reject) => {
    const onAbort = (): void => {
      promise.catch(() => {});
      resolve(ABORTED);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
