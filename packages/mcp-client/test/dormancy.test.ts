import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Dormancy } from "../src/dormancy.js";

const IDLE_MS = 1_000;

/** A Dormancy whose hooks record what happened; `reopen` settles when the test says. */
function createDormancy() {
  const log: string[] = [];
  let finishReopen: ((error?: Error) => void) | undefined;
  const dormancy = new Dormancy(IDLE_MS, {
    sleep: () => log.push("sleep"),
    reopen: () => {
      log.push("reopen");
      return new Promise<void>((resolve, reject) => {
        finishReopen = (error) => (error ? reject(error) : resolve());
      });
    },
    reopenFailed: async (error) => {
      log.push(`reopen failed: ${(error as Error).message}`);
    },
  });
  return { dormancy, log, finishReopen: (error?: Error) => finishReopen?.(error) };
}

/** The connection sleeps exactly when idleMs have passed from now, not a millisecond before. */
function expectSleepAfterIdleMs(log: string[]): void {
  vi.advanceTimersByTime(IDLE_MS - 1);
  expect(log).toEqual([]);
  vi.advanceTimersByTime(1);
  expect(log).toEqual(["sleep"]);
}

// The idle clock is a timer: fake timers move it without the tests waiting on real time.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("Dormancy: the idle clock", () => {
  it("puts the connection to sleep once it has been idle for idleMs", () => {
    const { dormancy, log } = createDormancy();
    dormancy.restart();
    expectSleepAfterIdleMs(log);
  });

  it("never sleeps while a request is in flight, and counts idle time from the end of the last one", () => {
    const { dormancy, log } = createDormancy();
    dormancy.restart();
    dormancy.begin();
    dormancy.begin();
    vi.advanceTimersByTime(IDLE_MS * 10);
    dormancy.end();
    vi.advanceTimersByTime(IDLE_MS * 10);
    expect(log).toEqual([]);
    dormancy.end();
    expectSleepAfterIdleMs(log);
  });

  it("does not sleep once stopped", () => {
    const { dormancy, log } = createDormancy();
    dormancy.restart();
    dormancy.stop();
    vi.advanceTimersByTime(IDLE_MS * 10);
    expect(log).toEqual([]);
  });

  it("does not count an unmatched end as a request in flight", () => {
    const { dormancy, log } = createDormancy();
    dormancy.end();
    dormancy.begin();
    dormancy.end();
    vi.advanceTimersByTime(IDLE_MS);
    expect(log).toEqual(["sleep"]);
  });
});

describe("Dormancy: waking", () => {
  it("reopens once for every caller waiting, and tells each that the server is back", async () => {
    const { dormancy, log, finishReopen } = createDormancy();
    const first = dormancy.wake(new AbortController().signal);
    const second = dormancy.wake(new AbortController().signal);
    expect(dormancy.waking).toBe(true);
    finishReopen();
    await expect(Promise.all([first, second])).resolves.toEqual([true, true]);
    expect(log).toEqual(["reopen"]);
    expect(dormancy.waking).toBe(false);
  });

  it("records a failed reopen once and answers every waiting caller false", async () => {
    const { dormancy, log, finishReopen } = createDormancy();
    const waits = [dormancy.wake(new AbortController().signal), dormancy.wake(new AbortController().signal)];
    finishReopen(new Error("refused"));
    await expect(Promise.all(waits)).resolves.toEqual([false, false]);
    expect(log).toEqual(["reopen", "reopen failed: refused"]);
  });

  it("lets a caller whose signal aborts stop waiting, while the others still get the server back", async () => {
    const { dormancy, finishReopen } = createDormancy();
    const controller = new AbortController();
    const impatient = dormancy.wake(controller.signal);
    const patient = dormancy.wake(new AbortController().signal);
    controller.abort();
    await expect(impatient).resolves.toBe(false);
    finishReopen();
    await expect(patient).resolves.toBe(true);
  });

  it("answers false at once to a caller whose signal had already aborted", async () => {
    const { dormancy, finishReopen } = createDormancy();
    const controller = new AbortController();
    controller.abort();
    await expect(dormancy.wake(controller.signal)).resolves.toBe(false);
    finishReopen();
  });
});
