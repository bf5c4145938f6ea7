import { McpServerConnection } from "@agent/mcp-client";
import { FakeTransport, fakeServer, initializeResult, ok } from "@agent/mcp-testing";
import { ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { MAX_TIMEOUT_MS } from "../src/connection-options.js";
import { DEFAULT_MAX_LISTING_BYTES } from "../src/discovery.js";
import { createFakeSetup } from "./harness.js";

const BAD_TIMEOUTS: unknown[] = [
  MAX_TIMEOUT_MS + 1,
  Number.POSITIVE_INFINITY,
  Number.NaN,
  -1,
  0,
  1.5,
  "1000",
];

function construct(options: Record<string, unknown>): () => McpServerConnection {
  return () =>
    new McpServerConnection({
      name: "docs",
      connect: () => new FakeTransport(fakeServer()),
      registry: new ToolRegistry(),
      ...options,
    });
}

describe("library timeouts", () => {
  for (const name of ["initializeMs", "listToolsMs", "callMs", "closeMs"]) {
    it(`refuses a ${name} setTimeout cannot honour, at construction`, () => {
      for (const value of BAD_TIMEOUTS) {
        const attempt = construct({ timeouts: { [name]: value } });
        expect(attempt).toThrow(expect.objectContaining({ name: "McpClientError", code: "invalid_option" }));
        expect(attempt).toThrow(new RegExp(`timeouts\\.${name} must be a whole number of milliseconds`));
      }
      expect(construct({ timeouts: { [name]: MAX_TIMEOUT_MS } })).not.toThrow();
    });
  }

  it("refuses bad reconnect numbers and listing limits", () => {
    expect(construct({ reconnect: { maxDelayMs: Number.POSITIVE_INFINITY } })).toThrow(
      /reconnect\.maxDelayMs/,
    );
    expect(construct({ reconnect: { maxAttempts: 0.5 } })).toThrow(/reconnect\.maxAttempts/);
    expect(construct({ maxPages: Number.NaN })).toThrow(/maxPages/);
    expect(construct({ maxListingBytes: -1 })).toThrow(/maxListingBytes/);
  });

  it("a huge but valid closeMs does not report a false mcp_close_failed", async () => {
    const { connection, events } = createFakeSetup(fakeServer(), {
      connection: { timeouts: { closeMs: MAX_TIMEOUT_MS } },
    });
    await connection.start();
    await connection.close();
    expect(events.ofType("mcp_close_failed")).toEqual([]);
    expect(events.ofType("mcp_closed")).toHaveLength(1);
  });
});

describe("discovery byte budget", () => {
  // Pages of ~1 MiB descriptions, never ending: without a budget this grows until memory runs out.
  function endlessHugePages(pageBytes: number) {
    let served = 0;
    const transport = new FakeTransport({
      initialize: () => ok(initializeResult()),
      "tools/list": () => {
        served += 1;
        return ok({
          tools: [
            {
              name: `t${served}`,
              description: "d".repeat(pageBytes),
              inputSchema: { type: "object" },
            },
          ],
          nextCursor: String(served),
        });
      },
    });
    return { transport, pagesServed: () => served };
  }

  it("fails the server with a structured error once the listing passes the budget", async () => {
    const { transport, pagesServed } = endlessHugePages(1024 * 1024);
    const registry = new ToolRegistry();
    const connection = new McpServerConnection({
      name: "docs",
      connect: () => transport,
      registry,
      maxListingBytes: 8 * 1024 * 1024,
    });
    await expect(connection.start()).rejects.toMatchObject({
      name: "McpClientError",
      code: "mcp_tools_list_too_large",
      server: "docs",
    });
    expect(connection.state).toBe("failed");
    expect(connection.error?.message).toMatch(/more than 8388608 bytes/);
    // Stopped at the budget (eight pages of just over 1 MiB), not after a thousand.
    expect(pagesServed()).toBe(8);
    expect(registry.names()).toEqual([]);
  });

  it("has a default budget", async () => {
    expect(DEFAULT_MAX_LISTING_BYTES).toBe(32 * 1024 * 1024);
    const { transport, pagesServed } = endlessHugePages(3 * 1024 * 1024);
    const connection = new McpServerConnection({
      name: "docs",
      connect: () => transport,
      registry: new ToolRegistry(),
    });
    await expect(connection.start()).rejects.toMatchObject({ code: "mcp_tools_list_too_large" });
    expect(pagesServed()).toBe(11);
  });

  it("measures a page as its JSON text: a budget of its length admits it, one byte less does not", async () => {
    const page = { tools: [], nextCursor: null, note: ["ab", 12.5, true] };
    const length = JSON.stringify(page).length;
    const start = (maxListingBytes: number) =>
      new McpServerConnection({
        name: "docs",
        connect: () =>
          new FakeTransport({ initialize: () => ok(initializeResult()), "tools/list": () => ok(page) }),
        registry: new ToolRegistry(),
        maxListingBytes,
      }).start();
    await expect(start(length)).resolves.toBeUndefined();
    await expect(start(length - 1)).rejects.toMatchObject({ code: "mcp_tools_list_too_large" });
  });

  it("counts a deeply nested page without exhausting the stack", async () => {
    let nested: unknown = "leaf";
    for (let depth = 0; depth < 20_000; depth += 1) nested = { a: [nested] };
    const transport = new FakeTransport({
      initialize: () => ok(initializeResult()),
      "tools/list": () => ok({ tools: [], deep: nested }),
    });
    const connection = new McpServerConnection({
      name: "docs",
      connect: () => transport,
      registry: new ToolRegistry(),
    });
    await expect(connection.start()).resolves.toBeUndefined();
  });
});
