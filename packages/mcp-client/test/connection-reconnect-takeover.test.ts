/**
 * An explicit reconnect() takes over from the reconnector a crash started: the reconnector stops,
 * so a failure is reported once, naming its real cause, and nothing tries again over a connection
 * reconnect() saw fail.
 */
import { fakeServer, ok } from "@agent/mcp-testing";
import { describe, expect, it } from "vitest";
import { connectionEachTime } from "./harness.js";

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
});
