/**
 * A built-in call validated against the catalog, then sent after a resources list_changed
 * re-listing withdrew what it names, is refused as a tools/call whose definition a listing replaced
 * while it was authorized is (server-calls.ts #sendNow).
 */
import { type FakeHandler, fakeServer, ok } from "@agent/mcp-testing";
import { describe, expect, it } from "vitest";
import { createFakeSetup, toolContext } from "./harness.js";

describe("a built-in call authorized before a list_changed re-listing", () => {
  it("does not read a resource the server withdrew while the call was authorized", async () => {
    let advertised = [{ uri: "file:///a", name: "a" }];
    const handlers: Record<string, FakeHandler> = {
      ...fakeServer(),
      initialize: () =>
        ok({
          protocolVersion: "2025-06-18",
          capabilities: { tools: {}, resources: { listChanged: true } },
          serverInfo: { name: "fake-server", version: "1" },
        }),
      "resources/list": () => ok({ resources: advertised }),
      "resources/read": () => ok({ contents: [{ uri: "file:///a", text: "secret" }] }),
    };
    const setup = createFakeSetup(handlers);
    await setup.connection.start();
    try {
      const prepared = setup.registry.get("mcp_server__docs__read_resource")?.prepare({ uri: "file:///a" });
      expect(prepared?.ok).toBe(true);
      // While the call waits for its approval, the server withdraws the resource and says so.
      advertised = [];
      setup.transport.pushNotification("notifications/resources/list_changed");
      await setup.connection.toolsSettled();
      expect(setup.connection.resources()).toEqual([]);
      const outcome = prepared?.ok ? await prepared.execute(toolContext()) : undefined;
      expect(setup.transport.requestsFor("resources/read")).toEqual([]);
      expect(outcome).toMatchObject({ error: "mcp_unavailable" });
    } finally {
      await setup.connection.close();
    }
  });
});
