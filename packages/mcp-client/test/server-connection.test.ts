/**
 * McpServerConnection swaps sessions: each handshake makes a new one, which the connection then
 * works on. A call in flight on the old session finishes or fails there, the old transport's
 * notifications no longer reach anything, and what the last handshake said stays readable.
 */
import { type FakeHandler, fakeServer } from "@agent/mcp-testing";
import { ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { McpServerConnection } from "../src/index.js";
import { connectEachTime, runAuthorized } from "./harness.js";

const TOOLS_CHANGED = "notifications/tools/list_changed";

/** A connection whose every connect opens a new FakeTransport, speaking the next of `versions`. */
function swappingSetup(versions: string[], call?: FakeHandler) {
  const registry = new ToolRegistry();
  const { transports, connect } = connectEachTime(() => {
    const protocolVersion = versions[Math.min(transports.length, versions.length - 1)] ?? "2025-11-25";
    return fakeServer({ protocolVersion, ...(call ? { call } : {}) });
  });
  const connection = new McpServerConnection({ name: "docs", registry, connect });
  return { connection, transports, registry };
}

/** Calls the registered `search` through its port, as the executor would after authorizing it. */
function callSearch(registry: ToolRegistry): Promise<unknown> {
  return runAuthorized(registry.get("mcp__docs__search"), { q: "x" });
}

describe("McpServerConnection", () => {
  it("works on the session of its last handshake once it reconnected", async () => {
    const { connection, transports, registry } = swappingSetup(["2025-03-26", "2025-11-25"]);
    await connection.start();
    expect(connection.protocolVersion).toBe("2025-03-26");
    await connection.reconnect();
    expect(connection.state).toBe("ready");
    expect(connection.protocolVersion).toBe("2025-11-25");
    expect(transports[0]?.closed).toBe(true);
    await callSearch(registry);
    expect(transports.map((transport) => transport.requestsFor("tools/call").length)).toEqual([0, 1]);
    await connection.close();
  });

  it("lets a call in flight on the old session fail there when a reconnect swaps in a new one", async () => {
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { connection, transports, registry } = swappingSetup(["2025-11-25"], async () => {
      await held;
      return { ok: true, result: { content: [] } };
    });
    await connection.start();
    const inFlight = callSearch(registry);
    await expect.poll(() => transports[0]?.requestsFor("tools/call").length).toBe(1);
    await connection.reconnect();
    // The old transport closed under it: the call fails as a closed connection, never resent on the new one.
    expect(await inFlight).toMatchObject({ error: "mcp_error", code: -32000 });
    expect(transports[0]?.requestsFor("tools/call")[0]?.outcome).toBe("connection_closed");
    expect(transports[1]?.requestsFor("tools/call")).toEqual([]);
    release?.();
    await connection.close();
  });

  it("hears nothing more from the transport of a session it swapped out", async () => {
    const { connection, transports } = swappingSetup(["2025-11-25"]);
    await connection.start();
    await connection.reconnect();
    transports[0]?.pushNotification(TOOLS_CHANGED);
    await connection.toolsSettled();
    expect(transports.map((transport) => transport.requestsFor("tools/list").length)).toEqual([1, 1]);
    transports[1]?.pushNotification(TOOLS_CHANGED);
    await connection.toolsSettled();
    expect(transports[1]?.requestsFor("tools/list")).toHaveLength(2);
    await connection.close();
  });

  it("still names what its last handshake said once its server went away", async () => {
    const { connection, transports } = swappingSetup(["2025-06-18"]);
    await connection.start();
    transports[0]?.crash("the server exited");
    expect(connection.state).toBe("disconnected");
    expect(connection.protocolVersion).toBe("2025-06-18");
    expect(connection.snapshot()).toMatchObject({ protocolVersion: "2025-06-18", protocolEra: "handshake" });
    await connection.close();
    expect(connection.state).toBe("closed");
  });
});
