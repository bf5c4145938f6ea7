/**
 * An explicit reconnect() takes over from the reconnector a crash started: the reconnector stops,
 * so a failure is reported once, naming its real cause, and nothing tries again over a connection
 * reconnect() saw fail.
 */
import { error, FakeTransport, fakeServer, ok } from "@agent/mcp-testing";
import { ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { McpServerConnection } from "../src/index.js";
import { connectionEachTime, runAuthorized } from "./harness.js";

const RETRY_AT_ONCE = { maxAttempts: 2, initialDelayMs: 0, maxDelayMs: 0 };

describe("reconnect() after a crash started the reconnector", () => {
  it("reports its failure once, with the real cause, and no attempt follows", async () => {
    // The first server is fine; every later one answers with a version the client does not speak.
    const { connection, events, transports } = connectionEachTime(
      () =>
        transports.length === 0 ? fakeServer() : { initialize: () => ok({ protocolVersion: "1999-01-01" }) },
      { reconnect: RETRY_AT_ONCE },
    );
    await connection.start();
    transports[0]?.crash("the server exited");
    await expect(connection.reconnect()).rejects.toMatchObject({ code: "unsupported_protocol_version" });
    await connection.toolsSettled();
    expect(events.ofType("mcp_server_failed")).toMatchObject([
      { server: "docs", code: "unsupported_protocol_version" },
    ]);
    expect(connection.state).toBe("failed");
    expect(connection.error?.code).toBe("unsupported_protocol_version");
    // The crashed server's transport and reconnect()'s: the reconnector opened none of its own.
    expect(transports).toHaveLength(2);
    await connection.close();
  });

  it("leaves the reconnector able to bring back a later crash once reconnect() succeeded", async () => {
    const { connection, events, transports } = connectionEachTime(() => fakeServer(), {
      reconnect: RETRY_AT_ONCE,
    });
    await connection.start();
    transports[0]?.crash("the server exited");
    await connection.reconnect();
    transports[1]?.crash("the server exited again");
    await connection.toolsSettled();
    expect(connection.state).toBe("ready");
    expect(transports).toHaveLength(3);
    expect(events.ofType("mcp_server_failed")).toEqual([]);
    await connection.close();
  });

  it("is not joined by the reconnector when it begins while a failed wake lets its transport go", async () => {
    const { connection, events, transports, takingOver } = await failedWakeTakenOver((connection) =>
      connection.reconnect(),
    );
    await takingOver();
    await connection.toolsSettled();
    expect(connection.state).toBe("ready");
    expect(events.ofType("mcp_reconnecting")).toEqual([]);
    expect(transports).toHaveLength(3);
    await connection.close();
  });
});

describe("close() while a failed wake lets its transport go", () => {
  it("ends closed, with no reconnector run begun after it", async () => {
    const { connection, events, transports, takingOver } = await failedWakeTakenOver((connection) =>
      connection.close(),
    );
    await takingOver();
    await connection.toolsSettled();
    expect(connection.state).toBe("closed");
    expect(events.ofType("mcp_reconnecting")).toEqual([]);
    expect(events.ofType("mcp_server_failed")).toEqual([]);
    // The first server's and the failed wake's: nothing was opened after close().
    expect(transports).toHaveLength(2);
    expect(transports.every((transport) => transport.closed)).toBe(true);
  });
});

/**
 * A dormant connection with a reconnect policy whose wake (made by a call) fails its handshake;
 * `takeOver` (a reconnect() or a close()) begins as the failed wake closes that transport, before
 * the close is done. Resolves once the call was told the server is not back.
 */
async function failedWakeTakenOver(takeOver: (connection: McpServerConnection) => Promise<void>) {
  let taking: Promise<void> | undefined;
  const transports: FakeTransport[] = [];
  const registry = new ToolRegistry();
  const { connection, events } = connectionEachTime(() => fakeServer(), {
    registry,
    reconnect: RETRY_AT_ONCE,
    idleTimeoutMs: 1,
    connect: () => {
      // The first and third servers are fine; the second (the wake's) refuses its handshake.
      const waking = transports.length === 1;
      const transport = new FakeTransport(
        waking ? { initialize: () => error(-32603, "not today") } : fakeServer(),
      );
      if (waking) {
        const close = transport.close.bind(transport);
        transport.close = () => {
          taking ??= takeOver(connection);
          return close();
        };
      }
      transports.push(transport);
      return transport;
    },
  });
  await connection.start();
  await expect.poll(() => connection.state).toBe("dormant");
  await runAuthorized(registry.get("mcp__docs__search"), { q: "x" });
  return { connection, events, transports, takingOver: () => taking };
}
