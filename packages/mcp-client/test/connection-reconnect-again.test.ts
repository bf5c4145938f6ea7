/**
 * A server that goes away again just after the reconnector brought it back, before the
 * reconnector's run ended, is heard (disconnected) and reconnected by one more run.
 */
import { type FakeHandler, FakeTransport, fakeServer } from "@agent/mcp-testing";
import { createMemoryEventSink, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { McpServerConnection } from "../src/index.js";

const TOOLS_CHANGED = "notifications/tools/list_changed";

describe("a server that drops again right after the reconnector brought it back", () => {
  it("is reconnected again, not left disconnected with no run under way", async () => {
    const memory = createMemoryEventSink();
    const transports: FakeTransport[] = [];
    const connect = () => {
      const handlers = fakeServer();
      const list = handlers["tools/list"] as FakeHandler;
      const transport = new FakeTransport(handlers);
      if (transports.length === 1) {
        // The second server says its tools changed during its first listing: answered once ready.
        transport.setHandler("tools/list", (params, request) => {
          transport.pushNotification(TOOLS_CHANGED);
          // It exits as the re-listing asks (a few microtasks after ready: the run is still under way).
          transport.setHandler("tools/list", () => {
            transport.crash("the server exited again");
            return new Promise<never>(() => {});
          });
          return list(params, request);
        });
      }
      transports.push(transport);
      return transport;
    };
    const connection = new McpServerConnection({
      name: "docs",
      registry: new ToolRegistry(),
      events: memory,
      connect,
      reconnect: { maxAttempts: 3, initialDelayMs: 0, maxDelayMs: 0 },
    });
    await connection.start();
    transports[0]?.crash("the server exited");
    await expect.poll(() => memory.ofType("mcp_server_exited").length).toBe(2);
    await connection.toolsSettled();
    const state = connection.state;
    const opened = transports.length;
    await connection.close();
    expect({ state, opened }).toEqual({ state: "ready", opened: 3 });
  });
});
