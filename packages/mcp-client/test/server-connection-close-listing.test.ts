/**
 * close() (or reconnect()) while a handshake has been answered but its first listing is not done:
 * a close ends the connection closed with nothing of that listing kept (no tool registered, no
 * resource or prompt listed), never ready after, no event saying it connected after its transport
 * closed, and the new transport closed; a reconnect replaces the handshake once it is done.
 */
import { FakeTransport, fakeServer, initializeResult, ok } from "@agent/mcp-testing";
import { type AgentEvent, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { McpServerConnection } from "../src/index.js";
import { actingOnAnswer, connectionEachTime, runAuthorized } from "./harness.js";

/** The types of the events after the first `mcp_closed` (the transport's close ended). */
function typesAfterClose(events: readonly AgentEvent[]): string[] {
  const closedAt = events.findIndex((event) => event.type === "mcp_closed");
  return closedAt < 0 ? [] : events.slice(closedAt + 1).map((event) => event.type);
}

/** A server with tools, resources and prompts (what `fakeServer` lists, and one of each other kind). */
function catalogServer() {
  return {
    ...fakeServer(),
    initialize: () => ok(initializeResult("2025-11-25", { tools: {}, resources: {}, prompts: {} })),
    "resources/list": () => ok({ resources: [{ uri: "file:///a", name: "a" }] }),
    "resources/templates/list": () => ok({ resourceTemplates: [{ uriTemplate: "file:///{x}", name: "x" }] }),
    "prompts/list": () => ok({ prompts: [{ name: "p" }] }),
  };
}

describe("close() during the first listing", () => {
  for (const method of ["tools/list", "resources/list", "resources/templates/list", "prompts/list"]) {
    it(`keeps nothing of a listing answered as close() ran (${method})`, async () => {
      let connection: McpServerConnection | undefined;
      // Told when the answer is in, before the listing resumes with it: close() runs right there.
      const { events, sink } = actingOnAnswer(method, () => void connection?.close());
      const made = connectionEachTime(catalogServer, { events: sink });
      connection = made.connection;
      await expect(connection.start()).rejects.toThrow();
      await connection.close();
      expect(connection.state).toBe("closed");
      expect(connection.snapshot().tools).toEqual([]);
      expect(made.connection.resources()).toEqual([]);
      expect(connection.resourceTemplates()).toEqual([]);
      expect(connection.prompts()).toEqual([]);
      expect(made.transports.map((transport) => transport.closed)).toEqual([true]);
      const listed = events.events.filter((event) => event.type === "mcp_request_finished");
      expect(listed.map((event) => event.type === "mcp_request_finished" && event.method)).toContain(method);
    });
  }
});

describe("close() as the handshake is answered or confirmed", () => {
  // The transport's notify goes out even once closed (an HTTP POST already sent): nothing but the
  // connection's own check stops the handshake then.
  for (const moment of ["initialize answered", "notifications/initialized sent"] as const) {
    it(`ends closed, never reported initialized, nothing listed (${moment})`, async () => {
      let connection: McpServerConnection | undefined;
      const closeNow = () => void connection?.close();
      const { events, sink } = actingOnAnswer(
        "initialize",
        moment === "initialize answered" ? closeNow : () => {},
      );
      const made = connectionEachTime(catalogServer, {
        events: sink,
        connect: () => {
          const transport = new FakeTransport(catalogServer());
          transport.notify = async () => {
            if (moment === "notifications/initialized sent") closeNow();
            return { ok: true };
          };
          made.transports.push(transport);
          return transport;
        },
      });
      connection = made.connection;
      await expect(connection.start()).rejects.toMatchObject({ code: "mcp_not_connected" });
      await connection.close();
      expect(connection.state).toBe("closed");
      expect(made.transports.map((transport) => transport.closed)).toEqual([true]);
      expect(made.transports[0]?.requestsFor("tools/list")).toEqual([]);
      expect(events.ofType("mcp_initialized")).toEqual([]);
      expect(connection.protocolVersion).toBeUndefined();
      expect(connection.snapshot().tools).toEqual([]);
    });
  }
});

describe("close() while a reconnect() lists the tools", () => {
  it("ends closed with every transport closed, and a call made meanwhile is answered", async () => {
    let connection: McpServerConnection | undefined;
    let call: Promise<unknown> | undefined;
    // The second tools/list is the reconnect's: a call is made, then close() runs, as it is answered.
    const { events, sink } = actingOnAnswer(
      "tools/list",
      () => {
        call = runAuthorized(registry.get("mcp__docs__search"), { q: "x" });
        void connection?.close();
      },
      2,
    );
    const registry = new ToolRegistry();
    const made = connectionEachTime(catalogServer, { events: sink, registry });
    connection = made.connection;
    await connection.start();
    await expect(connection.reconnect()).rejects.toMatchObject({ code: "mcp_not_connected" });
    await connection.close();
    expect(await call).toMatchObject({ error: "mcp_unavailable" });
    expect(connection.state).toBe("closed");
    expect(made.transports.map((transport) => transport.closed)).toEqual([true, true]);
    expect(typesAfterClose(events.events)).not.toContain("mcp_tools_listed");
    expect(connection.snapshot().tools).toEqual([]);
  });
});
