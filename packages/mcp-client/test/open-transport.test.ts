import { FakeTransport } from "@agent/mcp-testing";
import type { McpCloseReason, McpTransport } from "@agent/mcp-transport";
import { createMemoryEventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { listenTo, startTransport, type TransportListeners } from "../src/open-transport.js";
import { protocolFeatures } from "../src/protocol-version.js";

describe("startTransport", () => {
  it("hands back the transport its connect function opened, at once or later", async () => {
    const transport = new FakeTransport();
    expect(await startTransport("docs", () => transport)).toBe(transport);
    expect(await startTransport("docs", async () => transport)).toBe(transport);
  });

  it("turns a failure to start, thrown or rejected, into mcp_connect_failed naming the server", async () => {
    const cause = new Error("spawn docs-server ENOENT");
    for (const connect of [
      (): McpTransport => {
        throw cause;
      },
      async (): Promise<McpTransport> => Promise.reject(cause),
    ]) {
      const failure = startTransport("docs", connect);
      await expect(failure).rejects.toMatchObject({
        code: "mcp_connect_failed",
        server: "docs",
        message: 'Could not start server "docs": spawn docs-server ENOENT',
      });
      await expect(failure).rejects.toHaveProperty("cause", cause);
    }
  });
});

describe("listenTo", () => {
  function listeners(roots: boolean) {
    const closes: [McpTransport, McpCloseReason][] = [];
    const wiring: TransportListeners = {
      closed: (transport, reason) => closes.push([transport, reason]),
      requests: {
        server: "docs",
        features: roots ? { roots: [{ uri: "file:///work", name: "work" }] } : {},
        events: createMemoryEventSink(),
        roots: () => [{ uri: "file:///work", name: "work" }],
        protocol: () => protocolFeatures("2025-11-25"),
      },
    };
    return { closes, wiring };
  }

  it("passes on the transport's close, naming the transport that closed", async () => {
    const transport = new FakeTransport();
    const { closes, wiring } = listeners(false);
    listenTo(transport, wiring);
    transport.crash("the server exited");
    expect(closes).toEqual([[transport, { kind: "exited", message: "the server exited" }]]);
  });

  it("answers the server's requests for what the client offers, and only those", async () => {
    const transport = new FakeTransport();
    listenTo(transport, listeners(true).wiring);
    expect(await transport.serverRequest("roots/list")).toEqual({
      ok: true,
      result: { roots: [{ uri: "file:///work", name: "work" }] },
    });
    expect(await transport.serverRequest("sampling/createMessage")).toMatchObject({
      ok: false,
      error: { code: -32601 },
    });
  });

  it("returns what undoes each subscription: afterwards nothing more is heard or answered", async () => {
    const transport = new FakeTransport();
    const { closes, wiring } = listeners(true);
    for (const undo of listenTo(transport, wiring)) undo();
    expect(await transport.serverRequest("roots/list")).toMatchObject({ ok: false, error: { code: -32601 } });
    transport.crash();
    expect(closes).toEqual([]);
  });
});
