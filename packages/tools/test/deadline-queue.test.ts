import {
  DeadlineQueue,
  defineTool,
  type ExecutionEnvironment,
  executeToolCall,
  type ToolContext,
  ToolRegistry,
} from "@agent/tools";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { fixedGate } from "./helpers.js";

/** How many timers keep the process alive now (an unreferenced timer is not listed). */
function liveTimers(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === "Timeout").length;
}

/** Resolves once `count` entries of `queue` expired, with their names in the order they did. */
function expiries(queue: DeadlineQueue, limits: Record<string, number>, removed: string[] = []) {
  const expired: string[] = [];
  return new Promise<string[]>((resolve) => {
    const count = Object.keys(limits).length - removed.length;
    for (const [name, timeoutMs] of Object.entries(limits)) {
      const handle = queue.add(
        {
          expire() {
            expired.push(name);
            if (expired.length === count) resolve(expired);
          },
        },
        timeoutMs,
      );
      if (removed.includes(name)) queue.remove(handle);
    }
  });
}

describe("DeadlineQueue", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("keeps an earlier deadline when an entry added from inside expire() waits longer", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const queue = new DeadlineQueue();
    const expired: string[] = [];
    queue.add(
      {
        expire() {
          expired.push("first");
          queue.add({ expire: () => expired.push("long") }, 60_000);
        },
      },
      0,
    );
    queue.add({ expire: () => expired.push("second") }, 30);
    vi.advanceTimersByTime(30);
    expect(expired).toEqual(["first", "second"]);
    expect(queue.size).toBe(1);
  });

  it("still expires the other due entries when one expire() throws", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const queue = new DeadlineQueue();
    const expired: string[] = [];
    queue.add(
      {
        expire() {
          throw new Error("entry blew up");
        },
      },
      0,
    );
    queue.add({ expire: () => expired.push("after") }, 0);
    queue.add({ expire: () => expired.push("later") }, 20);
    // The throw reaches the timer's caller, as a throwing timer callback's does.
    expect(() => vi.advanceTimersByTime(1)).toThrow("entry blew up");
    vi.advanceTimersByTime(20);
    expect(expired).toEqual(["after", "later"]);
    expect(queue.size).toBe(0);
  });

  it("expires entries in deadline order, each once, whatever order they were added in", async () => {
    const queue = new DeadlineQueue();
    const expired = await expiries(queue, { late: 30, early: 5, middle: 15, alsoEarly: 5 });
    expect(expired).toEqual(["early", "alsoEarly", "middle", "late"]);
    expect(queue.size).toBe(0);
  });

  it("expires a limit that is not a positive number at once, and waits for those behind it", async () => {
    const queue = new DeadlineQueue();
    const expired = await expiries(queue, { nan: Number.NaN, later: 5, negative: -1, zero: 0 });
    expect(expired).toEqual(["nan", "negative", "zero", "later"]);
  });

  it("never expires a removed entry, and removing it twice changes nothing", async () => {
    const queue = new DeadlineQueue();
    const removedTwice = queue.add({ expire: () => expect.fail("expired after removal") }, 1);
    queue.remove(removedTwice);
    queue.remove(removedTwice);
    expect(await expiries(queue, { kept: 10, gone: 5, alsoKept: 20 }, ["gone"])).toEqual([
      "kept",
      "alsoKept",
    ]);
  });

  it("keeps the process alive while an entry waits, and not once the queue is empty", async () => {
    const before = liveTimers();
    const queue = new DeadlineQueue();
    const first = queue.add({ expire: () => expect.fail("removed") }, 60_000);
    const second = queue.add({ expire: () => expect.fail("removed") }, 60_000);
    expect(liveTimers()).toBe(before + 1);
    queue.remove(first);
    expect(liveTimers()).toBe(before + 1);
    queue.remove(second);
    expect(liveTimers()).toBe(before);
    // Its timer, left armed, is referenced again by the next entry.
    const third = queue.add({ expire: () => expect.fail("removed") }, 60_000);
    expect(liveTimers()).toBe(before + 1);
    queue.remove(third);
    expect(liveTimers()).toBe(before);
  });
});

describe("a call's time limit", () => {
  const hang = defineTool({
    name: "hang",
    description: "",
    schema: z.object({}),
    effect: "read",
    execute: (_input: object, context: ToolContext) => untilAborted(context),
  });

  function untilAborted(context: ToolContext): Promise<string> {
    return new Promise((resolve) =>
      context.cancellation?.addEventListener("abort", () => resolve("aborted")),
    );
  }

  function environment(registry: ExecutionEnvironment["registry"]): ExecutionEnvironment {
    return { registry, gate: fixedGate("allow"), runId: "r", cwd: "/" };
  }

  it("times out calls with different limits, each at its own, under the registry's one queue", async () => {
    const registry = new ToolRegistry();
    registry.register(hang);
    const finished: number[] = [];
    const limits = [40, 5, 20, 5, 60];
    // Each call's limit is an entry of the registry's queue while it runs, not a timer of its own.
    const waiting: number[] = [];
    registry.register(
      defineTool({
        name: "hang_counted",
        description: "",
        schema: z.object({}),
        effect: "read",
        execute: (_input: object, context: ToolContext) => {
          waiting.push(registry.deadlines.size);
          return untilAborted(context);
        },
      }),
    );
    await Promise.all(
      limits.map(async (timeoutMs) => {
        const outcome = await executeToolCall(
          { name: "hang_counted", input: {} },
          { ...environment(registry), timeoutMs },
        );
        expect(outcome).toMatchObject({
          ok: false,
          error: "timeout",
          message: expect.stringContaining(`${timeoutMs} ms`),
        });
        finished.push(timeoutMs);
      }),
    );
    expect(finished).toEqual([5, 5, 20, 40, 60]);
    expect(waiting).toEqual([1, 2, 3, 4, 5]);
    expect(registry.deadlines.size).toBe(0);
  });

  it("times out a call against a lookup without a queue, on a timer of its own", async () => {
    const env = { ...environment({ get: (name) => (name === "hang" ? hang : undefined) }), timeoutMs: 5 };
    expect(await executeToolCall({ name: "hang", input: {} }, env)).toMatchObject({
      ok: false,
      error: "timeout",
    });
  });

  it("takes a finished call's limit out of the queue", async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: "quick",
        description: "",
        schema: z.object({}),
        effect: "read",
        execute: () => {
          waiting.push(registry.deadlines.size);
          return "done";
        },
      }),
    );
    const waiting: number[] = [];
    const before = liveTimers();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => executeToolCall({ name: "quick", input: {} }, environment(registry))),
    );
    expect(outcomes.every((outcome) => outcome.type === "observation" && outcome.ok)).toBe(true);
    expect(waiting.every((size) => size > 0)).toBe(true);
    expect(registry.deadlines.size).toBe(0);
    expect(liveTimers()).toBe(before);
  });
});
