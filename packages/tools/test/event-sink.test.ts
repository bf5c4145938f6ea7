import {
  type AgentEvent,
  createEventClock,
  createMemoryEventSink,
  type EventSink,
  emitDecisionEvent,
  emitEvent,
  fanOutEvents,
  NULL_EVENT_SINK,
  transformEvents,
} from "@agent/tools";
import { describe, expect, it } from "vitest";

const closed = { type: "mcp_closed", server: "docs", durationMs: 1 } as const;
const exited = { type: "mcp_server_exited", server: "docs", reason: "exit", message: "bye" } as const;

/** A sink whose decision writes are held until `release` is called, recording what it got. */
function heldDecisionSink(): EventSink & { received: string[]; release(): void } {
  const received: string[] = [];
  let release = () => {};
  const written = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    received,
    release: () => release(),
    emit: (event) => void received.push(`emit ${event.type}`),
    emitDecision: (event) => {
      received.push(`decision ${event.type}`);
      return written;
    },
  };
}

describe("event clocks", () => {
  it("gives the same events the same time through a fan-out", () => {
    const left = createMemoryEventSink();
    const right = createMemoryEventSink();
    emitEvent(fanOutEvents(left, right), closed);
    expect(left.events[0]?.at).toBe(right.events[0]?.at);
  });

  it("reads the current time, in ISO 8601", () => {
    const clock = createEventClock();
    const before = Date.now();
    const at = clock();
    expect(new Date(at).toISOString()).toBe(at);
    expect(Date.parse(at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(at)).toBeLessThanOrEqual(Date.now());
  });
});

describe("event sinks", () => {
  it("the memory sink keeps every event in order and finds those of one type", () => {
    const sink = createMemoryEventSink();
    emitEvent(sink, closed);
    emitEvent(sink, exited);
    emitEvent(sink, closed);
    expect(sink.events.map((event) => event.type)).toEqual(["mcp_closed", "mcp_server_exited", "mcp_closed"]);
    expect(sink.ofType("mcp_server_exited")).toEqual([{ ...exited, at: expect.any(String) }]);
  });

  it("the null sink takes events and decisions and keeps nothing", async () => {
    emitEvent(NULL_EVENT_SINK, closed);
    await expect(emitDecisionEvent(NULL_EVENT_SINK, closed)).resolves.toBeUndefined();
    expect(Object.isFrozen(NULL_EVENT_SINK)).toBe(true);
  });

  it("a fan-out hands each event to every sink, in order", () => {
    const left = createMemoryEventSink();
    const right = createMemoryEventSink();
    const both = fanOutEvents(left, right);
    emitEvent(both, closed);
    emitEvent(both, exited);
    expect(left.events).toEqual(right.events);
    expect(left.events.map((event) => event.type)).toEqual(["mcp_closed", "mcp_server_exited"]);
  });

  it("a fan-out's decision is written once every sink that writes decisions wrote it", async () => {
    const plain = createMemoryEventSink();
    const first = heldDecisionSink();
    const second = heldDecisionSink();
    let written = false;
    const decision = emitDecisionEvent(fanOutEvents(plain, first, second), closed).then(() => {
      written = true;
    });
    expect(plain.events.map((event) => event.type)).toEqual(["mcp_closed"]);
    first.release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toBe(false);
    second.release();
    await decision;
    expect(written).toBe(true);
    expect([first.received, second.received]).toEqual([["decision mcp_closed"], ["decision mcp_closed"]]);
  });

  it("a fan-out of sinks that write no decisions has no decision write of its own", () => {
    expect(fanOutEvents(createMemoryEventSink(), createMemoryEventSink()).emitDecision).toBeUndefined();
  });

  it("a transform changes each event and decision on the way, keeping the inner sink's clock and decision write", async () => {
    const inner = heldDecisionSink();
    const clock = () => "2026-01-01T00:00:00.000Z";
    const seen: AgentEvent[] = [];
    const sink = transformEvents({ ...inner, clock }, (event) => {
      seen.push(event);
      return { ...event, server: "redacted" } as AgentEvent;
    });
    expect(sink.clock).toBe(clock);
    emitEvent(sink, closed);
    const decision = emitDecisionEvent(sink, exited);
    inner.release();
    await decision;
    expect(inner.received).toEqual(["emit mcp_closed", "decision mcp_server_exited"]);
    expect(seen.map((event) => event.at)).toEqual([clock(), clock()]);
  });

  it("a transform of a sink without a decision write has none either", () => {
    expect(transformEvents(createMemoryEventSink(), (event) => event).emitDecision).toBeUndefined();
  });
});
