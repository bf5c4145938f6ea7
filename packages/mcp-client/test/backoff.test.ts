import { describe, expect, it } from "vitest";
import { backoffDelay, retryWithBackoff } from "../src/backoff.js";
import type { ReconnectPolicy } from "../src/connection-options.js";

// Delays of 0 ms: the tests wait for what happens, never for a clock.
const INSTANT: ReconnectPolicy = { maxAttempts: 4, initialDelayMs: 0, maxDelayMs: 0 };

describe("backoffDelay", () => {
  it("doubles from the initial delay and stops at the cap", () => {
    const policy: ReconnectPolicy = { maxAttempts: 10, initialDelayMs: 500, maxDelayMs: 3_000 };
    expect([1, 2, 3, 4, 5, 10].map((attempt) => backoffDelay(policy, attempt))).toEqual([
      500, 1_000, 2_000, 3_000, 3_000, 3_000,
    ]);
  });
});

describe("retryWithBackoff", () => {
  it("stops at the first success and announces each attempt with its delay", async () => {
    const announced: [number, number][] = [];
    const failures: unknown[] = [];
    const attempts: number[] = [];
    const succeeded = await retryWithBackoff(
      INSTANT,
      async (number) => {
        attempts.push(number);
        if (number < 3) throw new Error(`attempt ${number} failed`);
      },
      {
        signal: new AbortController().signal,
        beforeAttempt: (number, delayMs) => announced.push([number, delayMs]),
        onFailure: async (error) => {
          failures.push((error as Error).message);
        },
      },
    );
    expect(succeeded).toBe(true);
    expect(attempts).toEqual([1, 2, 3]);
    expect(announced).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
    ]);
    expect(failures).toEqual(["attempt 1 failed", "attempt 2 failed"]);
  });

  it("gives up after maxAttempts failures", async () => {
    let attempts = 0;
    const succeeded = await retryWithBackoff(
      INSTANT,
      async () => {
        attempts += 1;
        throw new Error("down");
      },
      { signal: new AbortController().signal },
    );
    expect(succeeded).toBe(false);
    expect(attempts).toBe(INSTANT.maxAttempts);
  });

  it("makes no attempt once the signal has aborted, even during a long delay", async () => {
    const controller = new AbortController();
    let attempts = 0;
    const slow: ReconnectPolicy = { maxAttempts: 3, initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 };
    const retrying = retryWithBackoff(
      slow,
      async () => {
        attempts += 1;
      },
      // Aborted once the first delay has begun.
      { signal: controller.signal, beforeAttempt: () => setImmediate(() => controller.abort()) },
    );
    await expect(retrying).resolves.toBe(false);
    expect(attempts).toBe(0);
  });

  it("does not report a failure that the abort caused, nor try again after it", async () => {
    const controller = new AbortController();
    const failures: unknown[] = [];
    let attempts = 0;
    const succeeded = await retryWithBackoff(
      INSTANT,
      async () => {
        attempts += 1;
        controller.abort();
        throw new Error("aborted under us");
      },
      {
        signal: controller.signal,
        onFailure: async (error) => {
          failures.push(error);
        },
      },
    );
    expect([succeeded, attempts, failures]).toEqual([false, 1, []]);
  });
});
