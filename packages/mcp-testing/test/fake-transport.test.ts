import {
  FakeTransport,
  fakeServer,
  inputRequired,
  inputResponsesOf,
  ok,
  statelessFakeServer,
} from "@agent/mcp-testing";
import { negotiateEra } from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";
import { STATELESS_PROTOCOL_VERSION } from "../src/stateless.js";

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

  it("answers a server's ping with {} as the transport contract says, and other unhandled requests with -32601", async () => {
    const transport = new FakeTransport(fakeServer({ tools: ["echo"] }));
    expect(await transport.serverRequest("ping")).toEqual({ ok: true, result: {} });
    expect(await transport.serverRequest("roots/list")).toMatchObject({
      ok: false,
      error: { code: -32_601 },
    });
  });
});

describe("the 2026-07-28 shape", () => {
  const signal = new AbortController().signal;

  it("answers server/discover, and the era negotiation speaks the stateless protocol to it", async () => {
    const fake = new FakeTransport(statelessFakeServer({ tools: ["echo"] }));
    const client = negotiateEra(fake);
    const initialized = await client.request(
      "initialize",
      { protocolVersion: "2025-11-25", capabilities: {} },
      signal,
    );
    expect(initialized).toMatchObject({
      ok: true,
      result: { serverInfo: { name: "fake-stateless-server" } },
    });
    await client.request("tools/list", {}, signal);
    expect(fake.methods).toEqual(["server/discover", "tools/list"]);
    expect(fake.requestsFor("tools/list")[0]?.params).toMatchObject({
      _meta: { "io.modelcontextprotocol/protocolVersion": STATELESS_PROTOCOL_VERSION },
    });
  });

  it("records a multi-round call's retry with the answers and the state it was given", async () => {
    const fake = new FakeTransport(
      statelessFakeServer({
        call: (params) =>
          inputResponsesOf(params)
            ? ok({ content: [] })
            : ok(inputRequired({ roots: { method: "roots/list" } }, "s")),
      }),
    );
    const client = negotiateEra(fake);
    client.onRequest("roots/list", async () => ({ ok: true, result: { roots: [] } }));
    await client.request("initialize", { protocolVersion: "2025-11-25", capabilities: {} }, signal);
    await client.request("tools/call", { name: "search", arguments: {} }, signal);
    const retry = fake.requestsFor("tools/call")[1]?.params;
    expect(inputResponsesOf(retry)).toEqual({ roots: { roots: [] } });
    expect(retry).toMatchObject({ requestState: "s" });
  });
});
