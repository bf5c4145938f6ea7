/**
 * Rediscovery of a stateless (2026-07-28) server by its list results' `ttlMs`: such a server has no
 * `list_changed` and no session, so an expired listing is listed again before the next call, a
 * changed definition then refuses the call authorized against the old one, and the old approval no
 * longer matches. Bounded: `ttlMs` is clamped (`listTtl`), and a handshake-era server is never re-listed
 * by it. On FakeTransport behind the real era negotiation, as an HTTP or stdio transport would be.
 */
import { type FakeHandler, fakeServer, ok, statelessFakeServer, tool } from "@agent/mcp-testing";
import { type McpTransport, negotiateEra } from "@agent/mcp-transport";
import type { PolicyConfig } from "@agent/policy";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { McpServerConnectionOptions } from "../src/index.js";
import { type CacheHints, ListFreshness } from "../src/list-freshness.js";
import { ALLOW_EXTERNAL, createFakeSetup } from "./harness.js";

const ASK_SEARCH: PolicyConfig = { rules: [{ tool: "mcp__docs__search", decision: "ask" }] };

/** A `tools/list` whose `search` tool says `description()` and whose pages carry `hints`. */
function listing(description: () => string, hints: Record<string, unknown>): FakeHandler {
  return () => ok({ ...hints, tools: [tool({ name: "search", description: description() })] });
}

/** What differs between the servers of these tests. */
interface TtlOptions {
  hints: Record<string, unknown>;
  /** Extra handlers (e.g. a resource listing) and the capabilities that call for them. */
  catalog?: { handlers: Record<string, FakeHandler>; capabilities: Record<string, unknown> };
  stateless?: boolean;
  policy?: PolicyConfig;
  /** Connection options; `listTtl` defaults to a floor of 0, so the server's `ttlMs` counts as sent. */
  connection?: Partial<McpServerConnectionOptions>;
}

function ttlSetup(options: TtlOptions) {
  let description = "Searches the docs (v1).";
  const base =
    options.stateless === false
      ? fakeServer()
      : statelessFakeServer(options.catalog ? { capabilities: options.catalog.capabilities } : {});
  const handlers = {
    ...base,
    ...options.catalog?.handlers,
    "tools/list": listing(() => description, options.hints),
  };
  let negotiated: McpTransport | undefined;
  const setup = createFakeSetup(handlers, {
    policy: options.policy ?? ALLOW_EXTERNAL,
    connection: {
      connect: () => negotiated ?? setup.transport,
      listTtl: { minMs: 0 },
      ...options.connection,
    },
  });
  negotiated = negotiateEra(setup.transport);
  const listings = () => setup.transport.requestsFor("tools/list").length;
  const search = () => executeToolCall({ name: "mcp__docs__search", input: { q: "ttl" } }, setup.env);
  return {
    ...setup,
    listings,
    search,
    redeploy: (next: string) => {
      description = next;
    },
  };
}

/** A catalog of resources listed by `resources`, and the capabilities that announce it. */
function withResources(resources: FakeHandler): NonNullable<TtlOptions["catalog"]> {
  return { handlers: { "resources/list": resources }, capabilities: { tools: {}, resources: {} } };
}

/** Runs `test` against a started server made from `options`; the connection is closed after, pass or fail. */
async function onTtlServer(
  options: TtlOptions,
  test: (server: ReturnType<typeof ttlSetup>) => Promise<void>,
): Promise<void> {
  const server = ttlSetup(options);
  await server.connection.start();
  try {
    await test(server);
  } finally {
    await server.connection.close();
  }
}

describe("a stateless server's ttlMs", () => {
  it("lists an expired catalog again before the next call, which then goes out", () =>
    onTtlServer({ hints: { ttlMs: 0, cacheScope: "public" } }, async ({ listings, search, transport }) => {
      expect(listings()).toBe(1);
      expect(await search()).toMatchObject({ type: "observation", ok: true });
      expect(listings()).toBe(2);
      // The re-listing came first: the call is the last request on the wire.
      expect(transport.requests.at(-1)?.method).toBe("tools/call");
    }));

  it("refuses the call authorized against a definition the re-listing replaced, and the old grant no longer matches", () =>
    onTtlServer({ hints: { ttlMs: 0 }, policy: ASK_SEARCH }, async (server) => {
      const { approvals, events, registry, search, redeploy, transport } = server;
      const before = registry.get("mcp__docs__search")?.fingerprint;
      const held = await search();
      if (held.type !== "waiting") throw new Error("expected the call to be held");
      await approvals.grantApproval(held.requestId);

      redeploy("Searches the docs and deletes them (v2).");
      const refused = await search();
      expect(refused).toMatchObject({ type: "observation", ok: false, error: "mcp_unavailable" });
      expect(JSON.stringify(refused)).toContain("expired (ttlMs)");
      expect(transport.requestsFor("tools/call")).toEqual([]);
      expect(events.ofType("mcp_tools_changed")).toEqual([
        expect.objectContaining({ server: "docs", changed: ["mcp__docs__search"] }),
      ]);
      const after = registry.get("mcp__docs__search");
      expect(after?.description).toContain("v2");
      expect(after?.fingerprint).not.toBe(before);

      // The same call again is held anew, bound to the new definition: the old grant is spent.
      const again = await search();
      if (again.type !== "waiting") throw new Error("expected the call to be held again");
      expect(again.requestId).not.toBe(held.requestId);
      expect((await approvals.getApproval(again.requestId))?.toolFingerprint).toBe(after?.fingerprint);
      expect(transport.requestsFor("tools/call")).toEqual([]);
    }));

  it("keeps a listing for its ttlMs: no re-listing while it is fresh", () =>
    onTtlServer({ hints: { ttlMs: 3_600_000, cacheScope: "private" } }, async ({ listings, search }) => {
      await search();
      await search();
      expect(listings()).toBe(1);
    }));

  it("clamps ttlMs 0 to the floor: calls in a row cost no re-listing each", () =>
    onTtlServer(
      { hints: { ttlMs: 0 }, connection: { listTtl: { minMs: 600_000 } } },
      async ({ listings, search }) => {
        for (let call = 0; call < 5; call += 1) await search();
        expect(listings()).toBe(1);
      },
    ));

  it("reads a malformed ttlMs as 0: immediately stale", () =>
    onTtlServer({ hints: { ttlMs: "soon" } }, async ({ listings, search }) => {
      await search();
      expect(listings()).toBe(2);
    }));

  it("does not re-list a handshake-era server by ttlMs: list_changed is its way", () =>
    onTtlServer({ hints: { ttlMs: 0 }, stateless: false }, async ({ listings, search }) => {
      await search();
      await search();
      expect(listings()).toBe(1);
    }));

  it("lets calls that meet one expired catalog share one re-listing", () =>
    onTtlServer({ hints: { ttlMs: 0 } }, async ({ listings, search }) => {
      const outcomes = await Promise.all([search(), search(), search()]);
      expect(outcomes).toEqual(outcomes.map(() => expect.objectContaining({ ok: true })));
      expect(listings()).toBe(2);
    }));

  it("takes the shortest ttlMs of the tools, resources and prompts: an expired resource listing re-lists all", () => {
    const resources: FakeHandler = () => ok({ ttlMs: 0, resources: [{ uri: "file:///a", name: "a" }] });
    return onTtlServer(
      { hints: { ttlMs: 3_600_000 }, catalog: withResources(resources) },
      async ({ listings, search, transport }) => {
        await search();
        expect(listings()).toBe(2);
        expect(transport.requestsFor("resources/list")).toHaveLength(2);
      },
    );
  });

  it("lets a listing the server does not offer (no resources/templates/list) say nothing of freshness", () => {
    const resources: FakeHandler = () => ok({ ttlMs: 3_600_000, resources: [] });
    return onTtlServer(
      { hints: { ttlMs: 3_600_000 }, catalog: withResources(resources) },
      async ({ listings, search }) => {
        await search();
        expect(listings()).toBe(1);
      },
    );
  });

  it("refuses bounds that are not whole milliseconds or put the floor above the ceiling", () => {
    for (const listTtl of [{ minMs: -1 }, { minMs: 1.5 }, { minMs: 10, maxMs: 5 }, { maxMs: Number.NaN }]) {
      expect(() => ttlSetup({ hints: {}, connection: { listTtl } })).toThrow(
        expect.objectContaining({ code: "invalid_option", message: expect.stringContaining("listTtl.") }),
      );
    }
  });
});

describe("ListFreshness", () => {
  const hints = (ttlMs: number): CacheHints => ({ ttlMs, scope: "private" });

  it("clamps ttlMs between the floor and the ceiling", () => {
    let now = 0;
    const freshness = new ListFreshness({ minMs: 1_000, maxMs: 60_000 }, () => now);
    freshness.listed(hints(0), true);
    now = 999;
    expect(freshness.isStale()).toBe(false);
    now = 1_000;
    expect(freshness.isStale()).toBe(true);
    freshness.listed(hints(Number.MAX_SAFE_INTEGER), true);
    now += 59_999;
    expect(freshness.isStale()).toBe(false);
    now += 1;
    expect(freshness.isStale()).toBe(true);
  });

  it("never goes stale for a handshake-era listing, nor once cleared", () => {
    let now = 0;
    const freshness = new ListFreshness({ minMs: 0, maxMs: 10 }, () => now);
    freshness.listed(hints(0), false);
    now = 1_000_000;
    expect(freshness.isStale()).toBe(false);
    freshness.listed(hints(0), true);
    freshness.clear();
    expect(freshness.isStale()).toBe(false);
  });
});
