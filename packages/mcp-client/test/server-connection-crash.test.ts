/**
 * A server that exits just after answering the first listing: while connecting, a transport's close
 * is left to the pending handshake, which must then fail rather than say ready on a closed transport.
 */
import { FakeTransport, fakeServer } from "@agent/mcp-testing";
import { createMemoryEventSink, type EventSink, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { McpServerConnection } from "../src/index.js";

describe("a server that exits right after the first listing", () => {
  it("is not left ready on the closed transport", async () => {
    const memory = createMemoryEventSink();
    const transport = new FakeTransport(fakeServer());
    // The exit lands once the listing is registered (its mcp_tools_listed), before the connection is ready.
    const events: EventSink = {
      emit(event) {
        memory.emit(event);
        if (event.type === "mcp_tools_listed") transport.crash("the server exited");
      },
    };
    const connection = new McpServerConnection({
      name: "docs",
      registry: new ToolRegistry(),
      events,
      connect: () => transport,
      reconnect: { maxAttempts: 1, initialDelayMs: 0, maxDelayMs: 0 },
    });
    await expect(connection.start()).rejects.toMatchObject({
      code: "mcp_connection_closed",
      message: 'Server "docs" went away right after its handshake.',
    });
    expect(transport.requestsFor("tools/list")[0]?.outcome).toBe("answered");
    // Failed, or heard the exit (reported, reconnecting): never ready on a dead transport unheard.
    const heard = memory.ofType("mcp_server_exited").length + memory.ofType("mcp_server_failed").length;
    expect(heard).toBe(1);
    await connection.toolsSettled();
    // Its only transport is dead (connect hands out no other), so it cannot be ready.
    expect(connection.state).not.toBe("ready");
    await connection.close();
  });
});
