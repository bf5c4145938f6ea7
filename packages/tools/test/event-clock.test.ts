import {
  type AgentEvent,
  createEventClock,
  createMemoryEventSink,
  type EventSink,
  emitEvent,
  fanOutEvents,
} from "@agent/tools";
import { describe, expect, it } from "vitest";

const closed = { type: "mcp_closed", server: "docs", durationMs: 1 } as const;

describe("event time", () => {
  it("stamps an event from its sink's clock, and each sink owns its clock", () => {
    const received: AgentEvent[] = [];
    const sink: EventSink = {
      clock: () => "2026-01-01T00:00:00.000Z",
      emit: (event) => received.push(event),
    };
    emitEvent(sink, closed);
    emitEvent(createMemoryEventSink(), closed);
    expect(received.map((event) => event.at)).toEqual(["2026-01-01T00:00:00.000Z"]);
  });

  it("stamps the current time without a clock, and `now` when given", () => {
    const received: AgentEvent[] = [];
    const sink: EventSink = { emit: (event) => received.push(event) };
    const before = Date.now();
    emitEvent(sink, closed);
    emitEvent(sink, closed, new Date("2026-02-03T04:05:06.007Z"));
    const first = Date.parse(received[0]?.at ?? "");
    expect(first).toBeGreaterThanOrEqual(before);
    expect(first).toBeLessThanOrEqual(Date.now());
    expect(received[1]?.at).toBe("2026-02-03T04:05:06.007Z");
  });

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
