import {
  type AgentEvent,
  createMemoryEventSink,
  type EventSink,
  emitDecisionEvent,
  emitEvent,
  NULL_EVENT_SINK,
} from "@agent/tools";
import { describe, expect, it } from "vitest";

const closed = { type: "mcp_closed", server: "docs", durationMs: 1 } as const;

describe("emitEvent", () => {
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

  it("stamps a copy: the caller's event is left as it was", () => {
    const sink = createMemoryEventSink();
    const event = { ...closed };
    emitEvent(sink, event);
    expect(event).not.toHaveProperty("at");
    expect(sink.events[0]).toEqual({ ...closed, at: expect.any(String) });
  });
});

describe("emitDecisionEvent, the async decision write (issue 27)", () => {
  it("answers with a promise for every sink, settled once the record was emitted", async () => {
    const plain = createMemoryEventSink();
    const batched = createMemoryEventSink();
    const writes: string[] = [];
    const withWrite: EventSink = { ...batched, emitDecision: async (event) => void writes.push(event.type) };
    const answers = [NULL_EVENT_SINK, plain, withWrite].map((sink) => emitDecisionEvent(sink, closed));
    for (const answer of answers) expect(answer).toBeInstanceOf(Promise);
    await Promise.all(answers);
    expect(plain.events.map((event) => event.type)).toEqual(["mcp_closed"]);
    expect(writes).toEqual(["mcp_closed"]);
  });

  it("rejects, never throws, when the sink's decision write throws at once", async () => {
    const failing: EventSink = {
      emit() {},
      emitDecision() {
        throw new Error("disk full");
      },
    };
    await expect(emitDecisionEvent(failing, closed)).rejects.toThrow("disk full");
  });
});
