import { describe, expect, it } from "vitest";
import { createCoalescingRunner } from "../src/coalescing-runner.js";

/** A task whose runs each wait until the test releases them. */
function gatedTask() {
  const releases: (() => void)[] = [];
  let running = 0;
  let mostAtOnce = 0;
  let runs = 0;
  const task = () =>
    new Promise<void>((resolve) => {
      runs += 1;
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      releases.push(() => {
        running -= 1;
        resolve();
      });
    });
  return {
    task,
    release: () => releases.shift()?.(),
    stats: () => ({ runs, mostAtOnce }),
  };
}

describe("createCoalescingRunner", () => {
  it("runs the task once per request when requests do not overlap", async () => {
    let runs = 0;
    const runner = createCoalescingRunner(async () => {
      runs += 1;
    });
    runner.request();
    await runner.settled();
    runner.request();
    await runner.settled();
    expect(runs).toBe(2);
  });

  it("folds a burst of requests made during a run into one more run, never two at once", async () => {
    const gated = gatedTask();
    const runner = createCoalescingRunner(gated.task);
    runner.request();
    for (let index = 0; index < 5; index += 1) runner.request();
    gated.release();
    // The queued run starts once the first ends; release it when it has.
    await new Promise((resolve) => setImmediate(resolve));
    gated.release();
    await runner.settled();
    expect(gated.stats()).toEqual({ runs: 2, mostAtOnce: 1 });
  });

  it("settles at once when nothing ran, and only after a queued run when one is queued", async () => {
    const gated = gatedTask();
    const runner = createCoalescingRunner(gated.task);
    await runner.settled();
    runner.request();
    runner.request();
    let settled = false;
    const waiting = runner.settled().then(() => {
      settled = true;
    });
    gated.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    gated.release();
    await waiting;
    expect(gated.stats().runs).toBe(2);
  });
});
