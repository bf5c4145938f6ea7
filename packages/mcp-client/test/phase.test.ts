import { describe, expect, it } from "vitest";
import { createPhaseContext, delay } from "../src/phase.js";

describe("createPhaseContext", () => {
  it("aborts the phase when its own deadline passes, and says the deadline ended it", async () => {
    const phase = createPhaseContext(undefined, 1);
    await new Promise<void>((resolve) =>
      phase.context.signal?.addEventListener("abort", () => resolve(), { once: true }),
    );
    expect(phase.context.signal?.aborted).toBe(true);
    expect(phase.timedOut()).toBe(true);
  });

  it("aborts the phase with the caller's signal, which is not a time-out", () => {
    const caller = new AbortController();
    const phase = createPhaseContext(caller.signal, 60_000);
    expect(phase.context.signal?.aborted).toBe(false);
    caller.abort(new Error("user pressed Ctrl-C"));
    expect(phase.context.signal?.aborted).toBe(true);
    expect(phase.timedOut()).toBe(false);
  });

  it("starts aborted under a caller that already gave up, without calling that a time-out", () => {
    const phase = createPhaseContext(AbortSignal.abort(), 60_000);
    expect(phase.context.signal?.aborted).toBe(true);
    expect(phase.timedOut()).toBe(false);
  });
});

describe("delay", () => {
  it("resolves at once for a signal already aborted, and when the signal aborts while waiting", async () => {
    await expect(delay(60_000, AbortSignal.abort())).resolves.toBeUndefined();
    const controller = new AbortController();
    const waiting = delay(60_000, controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
  });

  it("resolves after its time with no signal at all", async () => {
    await expect(delay(1)).resolves.toBeUndefined();
  });
});
