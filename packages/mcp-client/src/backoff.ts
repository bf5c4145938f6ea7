import type { ReconnectPolicy } from "./connection-options.js";
import { delay } from "./phase.js";

/** The n-th delay (1-based): doubling from the initial delay, capped. */
export function backoffDelay(policy: ReconnectPolicy, attempt: number): number {
  return Math.min(policy.initialDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
}

/**
 * Tries `attempt` up to `policy.maxAttempts` times, waiting a capped, doubling delay before each.
 * Resolves `true` on the first success, `false` when every attempt failed or `signal` aborted.
 */
export async function retryWithBackoff(
  policy: ReconnectPolicy,
  attempt: (number: number) => Promise<void>,
  options: {
    signal: AbortSignal;
    beforeAttempt?: (number: number, delayMs: number) => void;
    onFailure?: (error: unknown) => Promise<void>;
  },
): Promise<boolean> {
  for (let number = 1; number <= policy.maxAttempts; number += 1) {
    const delayMs = backoffDelay(policy, number);
    options.beforeAttempt?.(number, delayMs);
    await delay(delayMs, options.signal);
    if (options.signal.aborted) return false;
    try {
      await attempt(number);
      return true;
    } catch (error) {
      if (options.signal.aborted) return false;
      await options.onFailure?.(error);
    }
  }
  return false;
}
