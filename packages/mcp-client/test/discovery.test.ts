/**
 * listTools: every page of a server's tool list, each entry checked for shape (a malformed one is
 * rejected visibly, the others kept), fields the negotiated version does not define dropped, and a
 * listing that breaks its own rules (two tools with one name, too many tools) failed whole.
 */
import { FakeTransport, fakeServer, ok, tool } from "@agent/mcp-testing";
import { describe, expect, it } from "vitest";
import { listTools } from "../src/discovery.js";
import { protocolFeatures } from "../src/protocol-version.js";

const context = () => ({ signal: new AbortController().signal });

function listing(tools: unknown[], page: Record<string, unknown> = {}) {
  return new FakeTransport({ "tools/list": () => ok({ ...page, tools }) });
}

describe("listTools", () => {
  it("follows nextCursor to the end and counts the pages", async () => {
    const transport = new FakeTransport(fakeServer({ tools: ["a", "b", "c"], pageSize: 2 }));
    const result = await listTools("docs", transport, context());
    expect(result.tools.map((entry) => entry.remoteName)).toEqual(["a", "b", "c"]);
    expect(result.pages).toBe(2);
    expect(result.rejected).toEqual([]);
  });

  it("rejects a malformed entry with its reason and keeps the others", async () => {
    const transport = listing([
      tool("search"),
      { name: "nameless", inputSchema: "not a schema" },
      { name: 7 },
      tool({ name: "bad name!" }),
    ]);
    const result = await listTools("docs", transport, context());
    expect(result.tools.map((entry) => entry.remoteName)).toEqual(["search"]);
    expect(result.rejected).toEqual([
      { remoteName: "nameless", reason: expect.stringMatching(/^unsupported_input_schema/) },
      { remoteName: "#2", reason: expect.stringContaining("not a string") },
      { remoteName: "bad name!", reason: expect.stringMatching(/^invalid_tool_name/) },
    ]);
  });

  it("fails the whole listing when two tools share a name", async () => {
    const transport = listing([tool("search"), tool("search")]);
    await expect(listTools("docs", transport, context())).rejects.toMatchObject({
      code: "duplicate_remote_tool",
      server: "docs",
    });
  });

  it("fails the whole listing past the tool budget", async () => {
    const transport = listing([tool("a"), tool("b"), tool("c")]);
    await expect(listTools("docs", transport, context(), { maxTools: 2 })).rejects.toMatchObject({
      code: "invalid_tools_list",
      server: "docs",
    });
  });

  it("drops the fields an older negotiated version does not define, as if the server had not sent them", async () => {
    const entry = tool({ name: "search", title: "Search", annotations: { readOnlyHint: true } });
    const older = await listTools("docs", listing([entry]), context(), {
      features: protocolFeatures("2024-11-05"),
    });
    expect(older.tools[0]).toMatchObject({ title: undefined, annotations: undefined });
    const latest = await listTools("docs", listing([entry]), context());
    expect(latest.tools[0]).toMatchObject({ title: "Search", annotations: { readOnlyHint: true } });
  });

  it("hands back the pages' caching hints, immediately stale when the server sent none", async () => {
    const hinted = await listTools(
      "docs",
      listing([tool("a")], { ttlMs: 30_000, cacheScope: "public" }),
      context(),
    );
    expect(hinted.cache).toEqual({ ttlMs: 30_000, scope: "public" });
    const plain = await listTools("docs", listing([tool("a")]), context());
    expect(plain.cache).toEqual({ ttlMs: 0, scope: "private" });
  });
});
