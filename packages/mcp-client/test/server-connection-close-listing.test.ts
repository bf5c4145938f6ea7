/**
 * close() while a handshake has been answered but its first listing is not done: the connection
 * ends closed with nothing of that listing kept (no tool registered, no resource or prompt listed),
 * never ready after, with the new transport closed.
 */
import { fakeServer, initializeResult, ok } from "@agent/mcp-testing";
import { createMemoryEventSink, type EventSink } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { McpServerConnection } from "../src/index.js";
import { connectionEachTime } from "./harness.js";

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
      const events = createMemoryEventSink();
      const closing: EventSink = {
        emit(event) {
          events.emit(event);
          if (event.type === "mcp_request_finished" && event.method === method) void connection?.close();
        },
      };
      const made = connectionEachTime(catalogServer, { events: closing });
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
