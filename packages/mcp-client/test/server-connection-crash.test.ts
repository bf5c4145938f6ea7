/**
 * A server that exits just after answering the first listing, or in the middle of one: while
 * connecting, a transport's close is left to the pending handshake, which must then fail rather than
 * say ready on a closed transport, and a reconnector's attempt that fails so is followed by the next.
 */
import { FakeTransport, fakeServer } from "@agent/mcp-testing";
import { createMemoryEventSink, type EventSink, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { McpServerConnection } from "../src/index.js";
import { connectionEachTime } from "./harness.js";

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

describe("a server that closes itself while the reconnector's attempt lists its tools", () => {
  it("is brought back by the next attempt, its exit mid-list neither reported as a drop nor a failure", async () => {
    // The second server (the reconnector's first attempt) exits as it is asked for its tools.
    const { connection, events, transports } = connectionEachTime(
      () =>
        transports.length === 1
          ? {
              ...fakeServer(),
              "tools/list": () => {
                transports[1]?.crash("the server exited mid-list");
                return new Promise(() => {});
              },
            }
          : fakeServer(),
      { reconnect: { maxAttempts: 2, initialDelayMs: 0, maxDelayMs: 0 } },
    );
    await connection.start();
    transports[0]?.crash("the server exited");
    await connection.toolsSettled();
    expect(connection.state).toBe("ready");
    expect(transports.map((transport) => transport.closed)).toEqual([true, true, false]);
    expect(events.ofType("mcp_reconnecting").map((event) => event.attempt)).toEqual([1, 2]);
    expect(events.ofType("mcp_server_exited")).toHaveLength(1);
    expect(events.ofType("mcp_server_failed")).toEqual([]);
    await connection.close();
  });
});
