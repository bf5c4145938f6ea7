import { FakeTransport, fakeServer } from "@agent/mcp-testing";
import { describe, expect, it } from "vitest";

describe("FakeTransport", () => {
  const signal = new AbortController().signal;

  it("logs every request and notification by default", async () => {
    const transport = new FakeTransport(fakeServer({ tools: ["echo"] }));
    await transport.request("tools/list", {}, signal);
    await transport.notify("notifications/initialized");
    expect(transport.methods).toEqual(["tools/list", "notifications/initialized"]);
  });

  it("with record: false answers the same and keeps no log", async () => {
    const transport = new FakeTransport(fakeServer({ tools: ["echo"] }), { record: false });
    const listed = await transport.request("tools/list", {}, signal);
    await transport.notify("notifications/initialized");
    expect(listed).toMatchObject({ ok: true, result: { tools: [{ name: "echo" }] } });
    expect(transport.calls).toEqual([]);
  });
});
