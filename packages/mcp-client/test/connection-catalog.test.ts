/**
 * A connection's resources, templates and prompts: each listing replaces the last one whole, a kind
 * the server no longer offers is forgotten, the built-in tools that read them exist once (a new
 * listing keeps them as they are), and every listing says so in the audit trail.
 */
import { FakeTransport, ok } from "@agent/mcp-testing";
import { createMemoryEventSink, type ToolContext } from "@agent/tools";
import { describe, expect, it } from "vitest";

/** Every listing is kept (the session is live). */
const KEEP = () => true;

import { ConnectionCatalog, catalogKinds } from "../src/connection-catalog.js";

const context = () => ({ signal: new AbortController().signal });

function catalogSetup() {
  let resources = [{ uri: "file:///a.md", name: "a" }];
  const transport = new FakeTransport({
    "resources/list": () => ok({ resources, ttlMs: 60_000, cacheScope: "public" }),
    "resources/templates/list": () =>
      ok({
        resourceTemplates: [{ uriTemplate: "file:///{name}", name: "any" }],
        ttlMs: 90_000,
        cacheScope: "public",
      }),
    "prompts/list": () => ok({ prompts: [{ name: "review" }, { description: "no name" }] }),
  });
  const events = createMemoryEventSink();
  const requests: string[] = [];
  const catalog = new ConnectionCatalog(
    {
      server: "docs",
      serverIdentity: undefined,
      request: async (method) => {
        requests.push(method);
        return { ok: true, result: { contents: [] } };
      },
    },
    events,
  );
  return {
    catalog,
    transport,
    events,
    requests,
    republish: (next: typeof resources) => {
      resources = next;
    },
  };
}

describe("catalogKinds", () => {
  it("reads which listings a server's capabilities call for", () => {
    expect(catalogKinds({ resources: {}, tools: {} })).toEqual({ resources: true, prompts: false });
    expect(catalogKinds({ prompts: { listChanged: true } })).toEqual({ resources: false, prompts: true });
  });
});

describe("ConnectionCatalog", () => {
  it("lists the kinds asked for, keeps what each listing rejected, and reports every listing", async () => {
    const { catalog, transport, events } = catalogSetup();
    await catalog.refresh(transport, context(), { resources: true, prompts: true }, KEEP);
    expect(catalog.resources.map((entry) => entry.uri)).toEqual(["file:///a.md"]);
    expect(catalog.templates).toHaveLength(1);
    expect(catalog.prompts.map((entry) => entry.name)).toEqual(["review"]);
    expect(catalog.rejected).toHaveLength(1);
    expect(events.events.map((event) => event.type)).toEqual(["mcp_resources_listed", "mcp_prompts_listed"]);
    expect(events.events[0]).toMatchObject({ server: "docs", resources: 1, templates: 1, rejected: 0 });
    // Resources said 60 s, prompts said nothing (immediately stale): the catalog is as fresh as its least fresh listing.
    expect(catalog.cacheHints).toEqual({ ttlMs: 0, scope: "private" });
  });

  it("replaces a listing whole, and forgets a kind the server no longer offers", async () => {
    const { catalog, transport, republish } = catalogSetup();
    await catalog.refresh(transport, context(), { resources: true, prompts: true }, KEEP);
    republish([{ uri: "file:///b.md", name: "b" }]);
    await catalog.refresh(transport, context(), { resources: true, prompts: false }, KEEP);
    expect(catalog.resources.map((entry) => entry.uri)).toEqual(["file:///b.md"]);
    expect(catalog.prompts).toEqual([]);
    expect(catalog.rejected).toEqual([]);
    expect(catalog.cacheHints).toEqual({ ttlMs: 60_000, scope: "public" });
  });

  it("offers the built-in tools of the kinds the server has, the same ones at every listing", async () => {
    const { catalog, transport } = catalogSetup();
    const names = (kinds: { resources: boolean; prompts: boolean }) =>
      catalog.tools(kinds).map((tool) => tool.name);
    expect(names({ resources: false, prompts: false })).toEqual([]);
    expect(names({ resources: true, prompts: true })).toEqual([
      "mcp_server__docs__list_resources",
      "mcp_server__docs__read_resource",
      "mcp_server__docs__get_prompt",
    ]);
    const before = catalog.tools({ resources: true, prompts: true });
    await catalog.refresh(transport, context(), { resources: true, prompts: true }, KEEP);
    expect(catalog.tools({ resources: true, prompts: true })).toEqual(before);
  });

  it("lets its read tool reach only a resource the last listing advertised, through the port", async () => {
    const { catalog, transport, requests } = catalogSetup();
    await catalog.refresh(transport, context(), { resources: true }, KEEP);
    const [, read] = catalog.tools({ resources: true, prompts: false });
    expect(read?.prepare({ uri: "file:///elsewhere/secret" }).ok).toBe(false);
    const prepared = read?.prepare({ uri: "file:///a.md" });
    if (!prepared?.ok) throw new Error("an advertised URI must validate");
    await prepared.execute({ signal: new AbortController().signal, callId: "c1" } as unknown as ToolContext);
    expect(requests).toEqual(["resources/read"]);
  });

  it("forgets every listing when cleared", async () => {
    const { catalog, transport } = catalogSetup();
    await catalog.refresh(transport, context(), { resources: true, prompts: true }, KEEP);
    catalog.clear();
    expect([catalog.resources, catalog.templates, catalog.prompts, catalog.rejected]).toEqual([
      [],
      [],
      [],
      [],
    ]);
    expect(catalog.cacheHints).toBeUndefined();
  });

  it("keeps nothing of a listing that came in once it may no longer be kept (a closed connection)", async () => {
    const { catalog, transport } = catalogSetup();
    await catalog.refresh(transport, context(), { resources: true, prompts: true }, KEEP);
    const kept = [catalog.resources, catalog.templates, catalog.prompts];
    await catalog.refresh(transport, context(), { resources: true, prompts: true }, () => false);
    expect([catalog.resources, catalog.templates, catalog.prompts]).toEqual(kept);
    catalog.clear();
    await catalog.refresh(transport, context(), { resources: true, prompts: true }, () => false);
    expect([catalog.resources, catalog.templates, catalog.prompts]).toEqual([[], [], []]);
  });
});
