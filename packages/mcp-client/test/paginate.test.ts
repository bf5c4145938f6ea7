import { type FakeHandler, FakeTransport } from "@agent/mcp-testing";
import { MCP_ERROR_CODES, mcpFailure } from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";
import { McpClientError } from "../src/errors.js";
import { listAllPages, type PaginatedListing } from "../src/paginate.js";

const LISTING: PaginatedListing = {
  server: "docs",
  method: "resources/list",
  key: "resources",
  maxPages: 5,
  maxItems: 10,
  maxBytes: 10_000,
  tooLargeCode: "mcp_tools_list_too_large",
  failedCode: "mcp_list_failed",
  invalidCode: "invalid_list",
};

/** Pages served by cursor: page 0 without one, page n for cursor `c<n>`. */
function pagesHandler(pages: Record<string, unknown>[]): FakeHandler {
  return (params) => {
    const cursor = (params as { cursor?: string }).cursor;
    const index = cursor === undefined ? 0 : Number(cursor.slice(1));
    return { ok: true, result: pages[index] };
  };
}

async function list(handler: FakeHandler, listing: Partial<PaginatedListing> = {}) {
  const transport = new FakeTransport({ "resources/list": handler });
  const result = await listAllPages(
    transport,
    { signal: new AbortController().signal },
    { ...LISTING, ...listing },
  );
  return { result, transport };
}

async function failure(
  handler: FakeHandler,
  listing: Partial<PaginatedListing> = {},
): Promise<McpClientError> {
  try {
    await list(handler, listing);
  } catch (error) {
    if (McpClientError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("the listing was expected to fail");
}

describe("listAllPages", () => {
  it("follows nextCursor to the end and returns every entry in order", async () => {
    const { result, transport } = await list(
      pagesHandler([
        { resources: [1, 2], nextCursor: "c1" },
        { resources: [3], nextCursor: "c2" },
        { resources: [4], nextCursor: null },
      ]),
    );
    // No caching hints: as the spec says, immediately stale; no scope said: private.
    expect(result).toEqual({ entries: [1, 2, 3, 4], pages: 3, cache: { ttlMs: 0, scope: "private" } });
    expect(transport.requests.map((request) => request.params)).toEqual([
      {},
      { cursor: "c1" },
      { cursor: "c2" },
    ]);
  });

  it("fails a listing that repeats a cursor, instead of looping", async () => {
    const error = await failure(
      pagesHandler([
        { resources: [], nextCursor: "c1" },
        { resources: [], nextCursor: "c1" },
      ]),
    );
    expect(error).toMatchObject({ code: "invalid_list", server: "docs" });
    expect(error.message).toMatch(/repeated the cursor/);
  });

  it("fails a listing that does not end within maxPages, having asked for no more", async () => {
    const endless: FakeHandler = (params) => {
      const cursor = (params as { cursor?: string }).cursor ?? "c0";
      return { ok: true, result: { resources: [], nextCursor: `c${Number(cursor.slice(1)) + 1}` } };
    };
    const transport = new FakeTransport({ "resources/list": endless });
    await expect(
      listAllPages(transport, { signal: new AbortController().signal }, { ...LISTING, maxPages: 3 }),
    ).rejects.toMatchObject({ code: "invalid_list", message: expect.stringMatching(/within 3 pages/) });
    expect(transport.requests).toHaveLength(3);
  });

  it("fails on more entries than maxItems, or more bytes than maxBytes, with their codes", async () => {
    const many = await failure(
      pagesHandler([{ resources: Array.from({ length: 11 }, (_, index) => index) }]),
    );
    expect(many.code).toBe("invalid_list");
    const big = await failure(pagesHandler([{ resources: ["x".repeat(200)] }]), { maxBytes: 100 });
    expect(big).toMatchObject({
      code: "mcp_tools_list_too_large",
      message: expect.stringMatching(/100 bytes/),
    });
  });

  it("fails a page without its array, or with a cursor that is not a string", async () => {
    for (const page of [{ items: [] }, { resources: "no" }, { resources: [], nextCursor: 7 }]) {
      const error = await failure(pagesHandler([page]));
      expect(error.code).toBe("invalid_list");
    }
  });

  it("reports the server's error with its code", async () => {
    const error = await failure(() => mcpFailure(-32603, "boom"));
    expect(error).toMatchObject({ code: "mcp_list_failed", message: "resources/list failed (-32603): boom" });
  });

  it("combines the pages' caching hints: the shortest ttlMs, private if one page is", async () => {
    const { result } = await list(
      pagesHandler([
        { resources: [1], nextCursor: "c1", ttlMs: 5_000, cacheScope: "public" },
        { resources: [2], nextCursor: "c2", ttlMs: 2_000.7, cacheScope: "public" },
        { resources: [3], ttlMs: 9_000, cacheScope: "private" },
      ]),
    );
    expect(result.cache).toEqual({ ttlMs: 2_000, scope: "private" });
    const allPublic = await list(
      pagesHandler([
        { resources: [1], nextCursor: "c1", ttlMs: 60_000, cacheScope: "public" },
        { resources: [2], ttlMs: Number.POSITIVE_INFINITY, cacheScope: "public" },
      ]),
    );
    // A non-finite ttlMs is malformed: read as 0, which wins.
    expect(allPublic.result.cache).toEqual({ ttlMs: 0, scope: "public" });
  });

  it("reads method-not-found on the first page of an optional listing as empty, and only there", async () => {
    const missing: FakeHandler = () => mcpFailure(MCP_ERROR_CODES.methodNotFound, "no such method");
    const { result } = await list(missing, { optional: true });
    // No listing: no caching hints either.
    expect(result).toEqual({ entries: [], pages: 1, cache: undefined });
    expect((await failure(missing)).code).toBe("mcp_list_failed");
    let pages = 0;
    const goneAfterOne: FakeHandler = () => {
      pages += 1;
      return pages === 1
        ? { ok: true, result: { resources: [1], nextCursor: "c1" } }
        : mcpFailure(MCP_ERROR_CODES.methodNotFound, "gone");
    };
    expect((await failure(goneAfterOne, { optional: true })).code).toBe("mcp_list_failed");
  });
});
