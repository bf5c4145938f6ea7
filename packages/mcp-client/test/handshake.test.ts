import { error, FakeTransport, initializeResult, ok } from "@agent/mcp-testing";
import type { McpTransport } from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";
import { DEFAULT_CLIENT_INFO, initializeServer } from "../src/handshake.js";

const context = () => ({ signal: new AbortController().signal, timeoutMs: 1_000 });

/** A transport whose requests reach `inner` but whose notifications all fail, as on a closed connection. */
function failingNotifications(inner: FakeTransport): McpTransport {
  return {
    request: (method, params, requestContext) => inner.request(method, params, requestContext),
    notify: async () => ({ ok: false, error: { code: -32000, message: "connection closed" } }),
    onNotification: (listener) => inner.onNotification(listener),
    onClose: (listener) => inner.onClose(listener),
    close: () => inner.close(),
  };
}

describe("initializeServer", () => {
  it("introduces the client with its info and only the capabilities it offers, then notifies initialized", async () => {
    const transport = new FakeTransport({ initialize: () => ok(initializeResult()) });
    await initializeServer(transport, context(), { name: "my-app", version: "2.0.0" }, { roots: {} });
    expect(transport.requests[0]?.params).toEqual({
      protocolVersion: "2025-11-25",
      capabilities: { roots: {} },
      clientInfo: { name: "my-app", version: "2.0.0" },
    });
    // A notification: sent after the answer, with no id and nothing awaited from the server.
    expect(transport.calls.map((call) => [call.kind, call.method])).toEqual([
      ["request", "initialize"],
      ["notification", "notifications/initialized"],
    ]);
  });

  it("offers no capabilities and the default client info when given none", async () => {
    const transport = new FakeTransport({ initialize: () => ok(initializeResult()) });
    await initializeServer(transport, context());
    expect(transport.requests[0]?.params).toMatchObject({
      capabilities: {},
      clientInfo: DEFAULT_CLIENT_INFO,
    });
  });

  it("reads what the server says of itself, leniently where it is optional", async () => {
    const full = new FakeTransport({
      initialize: () =>
        ok({
          protocolVersion: "2025-06-18",
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "docs", version: "1.2.3" },
          instructions: "Search before you read.",
        }),
    });
    expect(await initializeServer(full, context())).toEqual({
      protocolVersion: "2025-06-18",
      capabilities: { tools: { listChanged: true } },
      serverInfo: { name: "docs", version: "1.2.3" },
      instructions: "Search before you read.",
    });
    const sparse = new FakeTransport({
      initialize: () =>
        ok({
          protocolVersion: "2025-06-18",
          capabilities: "none",
          serverInfo: { name: "bare" },
          instructions: 7,
        }),
    });
    expect(await initializeServer(sparse, context())).toEqual({
      protocolVersion: "2025-06-18",
      capabilities: {},
      serverInfo: { name: "bare", version: "" },
      instructions: undefined,
    });
    const nameless = new FakeTransport({
      initialize: () => ok({ protocolVersion: "2025-06-18", serverInfo: { version: "1" } }),
    });
    expect((await initializeServer(nameless, context())).serverInfo).toBeUndefined();
  });

  it("fails with mcp_initialize_failed and the server's code when initialize is answered with an error", async () => {
    const transport = new FakeTransport({ initialize: () => error(-32602, "bad params") });
    await expect(initializeServer(transport, context())).rejects.toMatchObject({
      code: "mcp_initialize_failed",
      message: "initialize failed (-32602): bad params",
    });
    expect(transport.notifications).toEqual([]);
  });

  it("names the unsupported version the server answered, and the versions this client speaks", async () => {
    const transport = new FakeTransport({ initialize: () => ok(initializeResult("1999-01-01")) });
    const failure = initializeServer(transport, context());
    await expect(failure).rejects.toMatchObject({ code: "unsupported_protocol_version" });
    await expect(failure).rejects.toThrow(/1999-01-01.*2025-11-25/);
    expect(transport.notifications).toEqual([]);
  });

  it("fails with mcp_initialize_failed when notifications/initialized cannot be sent", async () => {
    const inner = new FakeTransport({ initialize: () => ok(initializeResult()) });
    await expect(initializeServer(failingNotifications(inner), context())).rejects.toMatchObject({
      code: "mcp_initialize_failed",
      message: "notifications/initialized failed: connection closed",
    });
  });
});
