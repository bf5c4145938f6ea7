/** A signal for one SDK call: aborted by the caller's signal, or by silence inside a started stream. */
export interface StreamWatch {
  /** Pass this to the SDK instead of the caller's signal. */
  readonly signal: AbortSignal;
  /** Whether the watch aborted because the stream went silent for too long. */
  readonly timedOut: boolean;
  /** Marks progress: (re)starts the silence timer. Call it when the stream connects and on each event. */
  touch(): void;
  /** Stops the timer and unlinks the caller's signal. */
  dispose(): void;
}

/**
 * Watches a streamed answer. The SDKs' `timeout` covers each attempt until the response headers;
 * a stream that then stalls would wait forever, so a stream that stays silent for `idleMs` is aborted
 * and reported as a timeout. The timer starts at the first {@link StreamWatch.touch}, not before:
 * the SDK's retry backoff must not count as silence.
 */
export function createStreamWatch(callerSignal: AbortSignal, idleMs: number): StreamWatch {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let timedOut = false;
  const onAbort = (): void => controller.abort(callerSignal.reason);
  if (callerSignal.aborted) onAbort();
  else callerSignal.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    touch() {
      if (controller.signal.aborted) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort(new Error(`the stream was silent for ${idleMs} ms`));
      }, idleMs);
    },
    dispose() {
      clearTimeout(timer);
      callerSignal.removeEventListener("abort", onAbort);
    },
  };
}
