import { FakeTransport, fakeServer } from "@agent/mcp-testing";
import type { McpTransport } from "@agent/mcp-transport";
import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { TransportHold } from "../src/transport-hold.js";

function holdOf(closeMs?: number) {
  const events = createMemoryEventSink();
  return { hold: new TransportHold({ server: "docs", events, closeMs }), events };
}

/** A promise and the functions that settle it, for an open the test finishes by hand. */
function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe("TransportHold", () => {
  it("holds what it opened until it lets go: its listeners are undone first, then it closes", async () => {
    const { hold, events } = holdOf();
    const transport = new FakeTransport(fakeServer());
    const opened = await hold.open(
      async () => transport,
      () => false,
    );
    expect(opened).toBe(transport);
    const heardClose: string[] = [];
    hold.hold(transport, [transport.onClose((reason) => heardClose.push(reason.kind))]);
    expect(hold.current).toBe(transport);

    await hold.release();
    expect(hold.current).toBeUndefined();
    expect(transport.closed).toBe(true);
    // The close it asked for is not heard as the server going away.
    expect(heardClose).toEqual([]);
    expect(events.ofType("mcp_closed")).toHaveLength(1);
    // Nothing held: letting go again closes nothing more.
    await hold.release();
    expect(events.ofType("mcp_closed")).toHaveLength(1);
  });

  it("closes a transport that finishes opening once it is unwanted, and hands back none", async () => {
    const { hold, events } = holdOf();
    const transport = new FakeTransport(fakeServer());
    let unwanted = false;
    const late = deferred<McpTransport>();
    const opening = hold.open(
      () => late.promise,
      () => unwanted,
    );
    unwanted = true;
    late.resolve(transport);
    expect(await opening).toBeUndefined();
    expect(transport.closed).toBe(true);
    expect(hold.current).toBeUndefined();
    expect(events.ofType("mcp_closed")).toHaveLength(1);
  });

  it("settles once every close it started and every open under way have finished", async () => {
    const { hold } = holdOf();
    const slow = new FakeTransport(fakeServer(), { closeDelayMs: 20 });
    hold.hold(slow, []);
    const releasing = hold.release();
    const late = deferred<McpTransport>();
    const lateTransport = new FakeTransport(fakeServer());
    const opening = hold.open(
      () => late.promise,
      () => true,
    );
    let settled = false;
    const settling = hold.settled().then(() => {
      settled = true;
    });
    await releasing;
    // The slow close is done; the open still pends, so settled() still waits.
    expect(settled).toBe(false);
    late.resolve(lateTransport);
    await opening;
    await settling;
    expect([slow.closed, lateTransport.closed]).toEqual([true, true]);
  });

  it("stops waiting for an open past the close bound, and says so", async () => {
    const { hold, events } = holdOf(10);
    const never = deferred<McpTransport>();
    void hold.open(
      () => never.promise,
      () => true,
    );
    await hold.settled();
    expect(events.ofType("mcp_close_failed")).toMatchObject([
      { server: "docs", message: "the transport was still opening after 10 ms; it is closed once it opens" },
    ]);
    // It is closed once it opens after all: no server is left behind.
    const transport = new FakeTransport(fakeServer());
    never.resolve(transport);
    await expect.poll(() => transport.closed).toBe(true);
  });
});
