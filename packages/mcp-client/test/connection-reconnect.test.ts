import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { ReconnectPolicy } from "../src/connection-options.js";
import { Reconnector, type ReconnectTarget } from "../src/connection-reconnect.js";

const POLICY: ReconnectPolicy = { maxAttempts: 3, initialDelayMs: 0, maxDelayMs: 0 };

/** A connection whose server comes back on attempt `backOn` (never, if absent), recording what it is told. */
function target(backOn?: number, lifetime = new AbortController()) {
  const events = createMemoryEventSink();
  const failures: string[] = [];
  const gaveUp: string[] = [];
  let attempts = 0;
  const connection: ReconnectTarget = {
    server: "docs",
    events,
    signal: lifetime.signal,
    async establish() {
      attempts += 1;
      if (attempts !== backOn) throw new Error(`attempt ${attempts} refused`);
    },
    async attemptFailed(error) {
      failures.push((error as Error).message);
    },
    async gaveUp(message) {
      gaveUp.push(message);
    },
  };
  return { connection, events, failures, gaveUp, lifetime, attempts: () => attempts };
}

describe("Reconnector", () => {
  it("tries again until the server is back, announcing each attempt and letting go of each failed one", async () => {
    const world = target(2);
    const reconnector = new Reconnector(POLICY, world.connection);
    reconnector.start();
    await reconnector.running;
    expect(world.attempts()).toBe(2);
    expect(world.failures).toEqual(["attempt 1 refused"]);
    expect(world.events.ofType("mcp_reconnecting")).toMatchObject([
      { server: "docs", attempt: 1, delayMs: 0 },
      { server: "docs", attempt: 2, delayMs: 0 },
    ]);
    expect(world.gaveUp).toEqual([]);
    expect(reconnector.running).toBeUndefined();
  });

  it("gives up after the policy's attempts, saying how many", async () => {
    const world = target();
    const reconnector = new Reconnector(POLICY, world.connection);
    reconnector.start();
    await reconnector.running;
    expect(world.attempts()).toBe(3);
    expect(world.gaveUp).toEqual(['Server "docs" did not come back after 3 attempts.']);
  });

  it("runs one reconnection at a time however often it is started", async () => {
    const world = target(1);
    const reconnector = new Reconnector(POLICY, world.connection);
    reconnector.start();
    const first = reconnector.running;
    reconnector.start();
    expect(reconnector.running).toBe(first);
    await first;
    expect(world.attempts()).toBe(1);
  });

  it("stops when told to: the attempt pending fails unreported, and no attempt or giving up follows", async () => {
    const world = target();
    let refuse: (() => void) | undefined;
    // The first attempt waits for the test; any later one is refused at once.
    world.connection.establish = () =>
      new Promise<void>((_, reject) => {
        if (refuse) reject(new Error("refused again"));
        refuse = () => reject(new Error("refused"));
      });
    const reconnector = new Reconnector(POLICY, world.connection);
    reconnector.start();
    // Stopped while its first attempt is pending.
    await expect.poll(() => refuse).toBeDefined();
    reconnector.stop();
    refuse?.();
    await reconnector.running;
    expect(world.failures).toEqual([]);
    expect(world.gaveUp).toEqual([]);
    expect(world.events.ofType("mcp_reconnecting")).toHaveLength(1);
  });

  it("stops at close: no attempt after the connection's signal aborted, and no giving up reported", async () => {
    const lifetime = new AbortController();
    const world = target(undefined, lifetime);
    const reconnector = new Reconnector(
      { maxAttempts: 5, initialDelayMs: 60_000, maxDelayMs: 60_000 },
      world.connection,
    );
    reconnector.start();
    lifetime.abort();
    await reconnector.running;
    expect(world.attempts()).toBe(0);
    expect(world.gaveUp).toEqual([]);
  });
});
