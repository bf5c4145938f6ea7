import { error, FakeTransport, ok } from "@agent/mcp-testing";
import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { emitRequestFinished, instrumentTransport, requestRecord } from "../src/instrumented-transport.js";

const never = () => new Promise<never>(() => {});

describe("instrumentTransport", () => {
  it("records each request's method, duration and outcome as mcp_request_finished, the code only on failure", async () => {
    const events = createMemoryEventSink();
    const fake = new FakeTransport({
      "tools/list": () => ok({ tools: [] }),
      "tools/call": () => error(-32602),
    });
    const transport = instrumentTransport(fake, events, "docs");
    expect(await transport.request("tools/list", {}, AbortSignal.timeout(1_000))).toEqual(ok({ tools: [] }));
    await transport.request("tools/call", {}, AbortSignal.timeout(1_000));
    const finished = events.ofType("mcp_request_finished");
    expect(finished).toMatchObject([
      { server: "docs", method: "tools/list", ok: true },
      { server: "docs", method: "tools/call", ok: false, code: -32602 },
    ]);
    expect(finished[0]).not.toHaveProperty("code");
    for (const event of finished) expect(event.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("records a request the caller cancelled while the connection lives", async () => {
    const events = createMemoryEventSink();
    const lifetime = new AbortController();
    const transport = instrumentTransport(
      new FakeTransport({ "tools/call": never }),
      events,
      "docs",
      lifetime.signal,
    );
    const caller = new AbortController();
    const pending = transport.request("tools/call", {}, caller.signal);
    caller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: -32800 } });
    expect(events.ofType("mcp_request_finished")).toMatchObject([{ method: "tools/call", code: -32800 }]);
  });

  it("records nothing of background work abandoned when the connection closed, yet tells the server", async () => {
    const events = createMemoryEventSink();
    const lifetime = new AbortController();
    const fake = new FakeTransport({ "tools/list": never });
    const transport = instrumentTransport(fake, events, "docs", lifetime.signal);
    const pending = transport.request("tools/list", {}, lifetime.signal);
    lifetime.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: -32800 } });
    expect(events.ofType("mcp_request_finished")).toEqual([]);
    expect(fake.cancelledRequestIds).toHaveLength(1);
  });

  it("passes notifications, listeners and close through to the transport it wraps", async () => {
    const fake = new FakeTransport();
    const transport = instrumentTransport(fake, createMemoryEventSink(), "docs");
    const heard: string[] = [];
    transport.onNotification((notification) => heard.push(notification.method));
    let closed = false;
    transport.onClose(() => {
      closed = true;
    });
    await transport.notify("notifications/initialized");
    fake.pushNotification("notifications/tools/list_changed");
    await transport.close();
    expect(fake.notifications.map((notification) => notification.method)).toEqual([
      "notifications/initialized",
    ]);
    expect(heard).toEqual(["notifications/tools/list_changed"]);
    expect(closed).toBe(true);
  });
});

describe("requestRecord and emitRequestFinished", () => {
  it("describe one request as its tool call's record and event hold it, attributed to the call", () => {
    const started = performance.now();
    expect(requestRecord("docs", "tools/call", started, ok())).toMatchObject({
      server: "docs",
      method: "tools/call",
      ok: true,
    });
    expect(requestRecord("docs", "tools/call", started, error(-32001, "timed out"))).toMatchObject({
      ok: false,
      code: -32001,
    });
    const events = createMemoryEventSink();
    emitRequestFinished(
      events,
      "docs",
      { callId: "c1", toolName: "mcp__docs__search" },
      "tools/call",
      started,
      ok(),
    );
    emitRequestFinished(events, "docs", undefined, "ping", started, error(-32000));
    expect(events.ofType("mcp_request_finished")).toMatchObject([
      { server: "docs", method: "tools/call", ok: true, callId: "c1", toolName: "mcp__docs__search" },
      { server: "docs", method: "ping", ok: false, code: -32000 },
    ]);
    expect(events.ofType("mcp_request_finished")[1]).not.toHaveProperty("callId");
  });
});
