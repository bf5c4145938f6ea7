/**
 * A transport that ends by itself saying `kind: "client"` (a wrapped SDK transport closed under the
 * connection, a custom transport that reports every end so): the connection did not ask for that
 * close, so it hears a server gone, not its own close, and never stays ready on a dead transport.
 */
import { fakeServer } from "@agent/mcp-testing";
import { describe, expect, it } from "vitest";
import type { ReconnectPolicy } from "../src/connection-options.js";
import { connectionEachTime } from "./harness.js";

function selfClosingSetup(reconnect?: ReconnectPolicy) {
  return connectionEachTime(() => fakeServer(), reconnect ? { reconnect } : {});
}

describe("a transport that closes by itself reporting kind client", () => {
  it("leaves the connection disconnected, with the exit reported", async () => {
    const { connection, events, transports } = selfClosingSetup();
    await connection.start();
    // FakeTransport reports every close() as the client's: here nobody but the test asked for it.
    await transports[0]?.close();
    expect(connection.state).toBe("disconnected");
    expect(events.ofType("mcp_server_exited")).toMatchObject([{ server: "docs", reason: "client" }]);
    expect(connection.error).toMatchObject({ code: "mcp_connection_closed" });
    await connection.close();
  });

  it("is reconnected when the connection has a reconnect policy", async () => {
    const { connection, events, transports } = selfClosingSetup({
      maxAttempts: 2,
      initialDelayMs: 0,
      maxDelayMs: 0,
    });
    await connection.start();
    await transports[0]?.close();
    await connection.toolsSettled();
    expect(connection.state).toBe("ready");
    expect(events.ofType("mcp_reconnecting")).toHaveLength(1);
    expect(transports.map((transport) => transport.closed)).toEqual([true, false]);
    await connection.close();
  });
});
