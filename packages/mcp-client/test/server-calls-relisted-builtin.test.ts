/**
 * A built-in tool's call (read_resource) is checked against the catalog when it is validated, and
 * again after the expired catalog it waited for was listed again (ttlMs): a URI the server no longer
 * advertises is not read, as a tools/call whose definition changed there is not sent.
 */
import { type FakeHandler, ok, statelessFakeServer, tool } from "@agent/mcp-testing";
import { negotiateEra } from "@agent/mcp-transport";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { ALLOW_EXTERNAL, createFakeSetup } from "./harness.js";

describe("a built-in tool after its catalog was listed again", () => {
  it("does not read a resource the re-listing no longer advertises", async () => {
    let advertised = [{ uri: "file:///a", name: "a" }];
    const handlers: Record<string, FakeHandler> = {
      ...statelessFakeServer({ capabilities: { tools: {}, resources: {} } }),
      "tools/list": () => ok({ ttlMs: 0, tools: [tool({ name: "search" })] }),
      "resources/list": () => ok({ ttlMs: 0, resources: advertised }),
      "resources/read": () => ok({ contents: [{ uri: "file:///a", text: "secret" }] }),
    };
    const setup = createFakeSetup(handlers, {
      policy: ALLOW_EXTERNAL,
      connection: { connect: () => negotiated, listTtl: { minMs: 0 } },
    });
    const negotiated = negotiateEra(setup.transport);
    await setup.connection.start();
    try {
      // The server withdraws the resource; the catalog the call is validated against still lists it.
      advertised = [];
      const outcome = await executeToolCall(
        { name: "mcp_server__docs__read_resource", input: { uri: "file:///a" } },
        setup.env,
      );
      expect(setup.transport.requestsFor("resources/list").length).toBeGreaterThan(1);
      expect(setup.transport.requestsFor("resources/read")).toEqual([]);
      expect(outcome).toMatchObject({
        ok: false,
        error: "mcp_unavailable",
        message: expect.stringContaining(
          "no longer lists what mcp_server__docs__read_resource was called with",
        ),
      });
    } finally {
      await setup.connection.close();
    }
  });
});
