import type { McpRequestContext } from "@agent/mcp-transport";

/** A request context for one lifecycle phase: the caller's signal plus a deadline for the whole phase. */
export interface PhaseContext {
  context: McpRequestContext;
  /** Whether the phase's own deadline (not the caller) ended it. */
  timedOut(): boolean;
}

/**
 * Bounds a phase (handshake, discovery) in time as a whole, even when it takes several requests:
 * when the deadline passes, the pending request is aborted (so the server is told it was cancelled).
 */
export function createPhaseContext(signal: AbortSignal | undefined, timeoutMs: number): PhaseContext {
  const deadline = AbortSignal.timeout(timeoutMs);
  return {
    context: { signal: signal ? AbortSignal.any([signal, deadline]) : deadline },
    timedOut: () => deadline.aborted && !signal?.aborted,
  };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
