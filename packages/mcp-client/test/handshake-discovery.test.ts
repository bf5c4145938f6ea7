import {
  initializeServer,
  listTools,
  MAX_SERVER_NAME_LENGTH,
  McpServerConnection,
  mcpToolName,
} from "@agent/mcp-client";
import { FakeTransport, fakeServer, initializeResult, ok, tool } from "@agent/mcp-testing";
import { ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { createFakeSetup } from "./harness.js";

const context = () => ({ signal: new AbortController().signal, timeoutMs: 1_000 });

describe("handshake", () => {
  it("offers the newest version and accepts each supported answer", async () => {
    for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
      const transport = new FakeTransport(fakeServer({ protocolVersion: version }));
      await expect(initializeServer(transport, context())).resolves.toMatchObject({
        protocolVersion: version,
      });
      expect(transport.requests[0]?.params).toMatchObject({ protocolVersion: "2025-11-25" });
    }
  });

  it("fails a server that answers an unsupported version and calls nothing else", async () => {
    const { connection, transport, registry, events } = createFakeSetup(
      fakeServer({ protocolVersion: "2024-10-07" }),
    );
    await expect(connection.start()).rejects.toMatchObject({ code: "unsupported_protocol_version" });
    expect(transport.methods).toEqual(["initialize"]);
    expect(transport.closeCount).toBe(1);
    expect(registry.names()).toEqual([]);
    expect(events.ofType("mcp_initialize_failed")[0]).toMatchObject({
      server: "docs",
      code: "unsupported_protocol_version",
    });
  });

  it("bounds the handshake in time", async () => {
    const { connection } = createFakeSetup(
      { initialize: () => new Promise(() => {}) },
      { connection: { timeouts: { initializeMs: 20 } } },
    );
    await expect(connection.start()).rejects.toThrow(/initialize timed out after 20 ms/);
    expect(connection.state).toBe("failed");
  });

  it("rejects an initialize result that is not an object", async () => {
    const transport = new FakeTransport({ initialize: () => ok("hello") });
    await expect(initializeServer(transport, context())).rejects.toMatchObject({
      code: "invalid_initialize_result",
    });
  });
});

describe("discovery", () => {
  it("follows nextCursor to the end", async () => {
    const names = Array.from({ length: 7 }, (_, index) => `t${index}`);
    const transport = new FakeTransport(fakeServer({ tools: names, pageSize: 3 }));
    const listing = await listTools("docs", transport, context());
    expect(listing.tools.map((entry) => entry.remoteName)).toEqual(names);
    expect(listing.pages).toBe(3);
    expect(transport.requests.map((request) => request.params)).toEqual([
      {},
      { cursor: "3" },
      { cursor: "6" },
    ]);
  });

  it("treats a repeated cursor or endless pages as an error", async () => {
    const looping = new FakeTransport({ "tools/list": () => ok({ tools: [], nextCursor: "same" }) });
    await expect(listTools("docs", looping, context())).rejects.toThrow(/repeated the cursor/);
    let page = 0;
    const endless = new FakeTransport({ "tools/list": () => ok({ tools: [], nextCursor: String(page++) }) });
    await expect(listTools("docs", endless, context(), { maxPages: 5 })).rejects.toThrow(/within 5 pages/);
    const huge = new FakeTransport(
      fakeServer({ tools: Array.from({ length: 30 }, (_, index) => `t${index}`), pageSize: 10 }),
    );
    await expect(listTools("docs", huge, context(), { maxTools: 25 })).rejects.toThrow(/more than 25 tools/);
  });

  it("rejects malformed entries visibly and keeps the valid ones", async () => {
    const { connection, registry, events } = createFakeSetup(
      fakeServer({
        tools: [
          tool("good"),
          tool("bad.name"),
          tool({ name: "refs", inputSchema: { type: "object", properties: { a: { $ref: "http://x/y" } } } }),
          tool({ name: "array_root", inputSchema: { type: "array" } }),
          { name: "no_schema", inputSchema: undefined },
          tool({ name: "bad_description", description: 42 as never }),
        ],
      }),
    );
    await connection.start();
    expect(registry.names()).toEqual(["mcp__docs__good"]);
    const reasons = Object.fromEntries(
      connection.snapshot().rejected.map((entry) => [entry.remoteName, entry.reason]),
    );
    expect(reasons["bad.name"]).toMatch(/invalid_tool_name/);
    expect(reasons.refs).toMatch(/unsupported_input_schema/);
    expect(reasons.array_root).toMatch(/unsupported_input_schema/);
    expect(reasons.no_schema).toMatch(/unsupported_input_schema/);
    expect(reasons.bad_description).toMatch(/invalid_tool_description/);
    expect(events.ofType("mcp_tool_rejected")).toHaveLength(5);
    expect(events.ofType("mcp_tools_listed")[0]).toMatchObject({ count: 1, rejected: 5, pages: 1 });
  });

  it("fails the server when it lists two tools with one name, registering none", async () => {
    const { connection, registry } = createFakeSetup(fakeServer({ tools: ["search", "other", "search"] }));
    await expect(connection.start()).rejects.toMatchObject({ code: "duplicate_remote_tool" });
    expect(registry.names()).toEqual([]);
  });

  it("registers only the tools the filter includes", async () => {
    const { connection, registry } = createFakeSetup(fakeServer({ tools: ["a", "b", "c"] }), {
      connection: { includeTool: (name) => name !== "b" },
    });
    await connection.start();
    expect(registry.names()).toEqual(["mcp__docs__a", "mcp__docs__c"]);
    expect(connection.snapshot().excluded).toEqual(["b"]);
  });
});

describe("names", () => {
  it("accepts a name of exactly 64 characters and rejects one past it", async () => {
    const fits = "t".repeat(64 - "mcp__docs__".length);
    const { connection, registry } = createFakeSetup(fakeServer({ tools: [fits, `${fits}x`] }));
    await connection.start();
    expect(registry.names()).toEqual([mcpToolName("docs", fits)]);
    expect(mcpToolName("docs", fits)).toHaveLength(64);
    expect(connection.snapshot().rejected[0]?.reason).toMatch(/would be 65 characters/);
  });

  it("refuses server names that could collide or overflow", () => {
    const registry = new ToolRegistry();
    const make = (name: string) => () =>
      new McpServerConnection({ name, connect: () => new FakeTransport(), registry });
    expect(make("a__b")).toThrowError(expect.objectContaining({ code: "invalid_server_name" }));
    expect(make("has space")).toThrow(/\[a-zA-Z0-9_-\]/);
    expect(make("_lead")).toThrow(/start or end/);
    expect(make("s".repeat(MAX_SERVER_NAME_LENGTH + 1))).toThrow(/at most/);
    expect(make("s".repeat(MAX_SERVER_NAME_LENGTH))).not.toThrow();
  });

  it("never confuses a__b + c with a + b__c", () => {
    expect(mcpToolName("a", "b__c")).toBe("mcp__a__b__c");
    expect(
      () =>
        new McpServerConnection({
          name: "a__b",
          connect: () => new FakeTransport(),
          registry: new ToolRegistry(),
        }),
    ).toThrow();
  });

  it("keeps the server's initialize answer for listings", async () => {
    const { connection } = createFakeSetup({
      ...fakeServer(),
      initialize: () => ok(initializeResult("2025-03-26")),
    });
    await connection.start();
    expect(connection.snapshot()).toMatchObject({
      state: "ready",
      protocolVersion: "2025-03-26",
      serverInfo: { name: "fake-server" },
    });
  });
});
