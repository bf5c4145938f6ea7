/**
 * A session is what one handshake made: born with its transport and what was negotiated on it, it
 * answers its server's list_changed only once the connection is ready on it, shares one re-listing
 * of an expired catalog among every caller, and ends with its transport: nothing more is listed on it.
 */
import { error, FakeTransport, fakeServer, ok, statelessFakeServer, tool } from "@agent/mcp-testing";
import { type McpTransport, negotiateEra } from "@agent/mcp-transport";
import { createMemoryEventSink, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { resolveTimeouts } from "../src/connection-options.js";
import { createSessionParts, McpSession } from "../src/mcp-session.js";
import { EMPTY_ANSWERS } from "./harness.js";

const TOOLS_CHANGED = "notifications/tools/list_changed";

function sessionParts(transport: McpTransport) {
  const registry = new ToolRegistry();
  const events = createMemoryEventSink();
  const failures: unknown[] = [];
  const parts = createSessionParts(
    { name: "docs", connect: () => transport, registry, events },
    {
      events,
      timeouts: resolveTimeouts(undefined),
      lifetime: new AbortController().signal,
      calls: { ...EMPTY_ANSWERS, request: async () => ({ ok: true, result: {} }) },
      listingFailed: async (_session, failure) => {
        failures.push(failure);
      },
    },
  );
  return { parts, registry, events, failures };
}

async function openedSession(handlers = fakeServer({ protocolVersion: "2025-06-18" })) {
  const transport = new FakeTransport(handlers);
  const setup = sessionParts(transport);
  const session = await McpSession.open(transport, setup.parts, undefined);
  await session.discover(undefined, true);
  const listings = () => transport.requestsFor("tools/list").length;
  return { ...setup, transport, session, listings };
}

describe("McpSession", () => {
  it("holds what its handshake negotiated, and registers what its listing found", async () => {
    const { session, registry, transport } = await openedSession();
    expect(session.transport).toBe(transport);
    expect(session.protocolVersion).toBe("2025-06-18");
    expect(session.wire).toEqual({ era: "handshake" });
    expect(session.features.toolTitle).toBe(true);
    expect(session.kinds).toEqual({ resources: false, prompts: false });
    expect(registry.listGroup("mcp:docs").map((entry) => entry.name)).toEqual(["mcp__docs__search"]);
  });

  it("answers a list_changed that arrived during its first listing only once it is ready", async () => {
    const { session, transport, listings } = await openedSession();
    transport.pushNotification(TOOLS_CHANGED);
    await session.settled();
    expect(listings()).toBe(1);
    session.ready();
    await session.settled();
    expect(listings()).toBe(2);
  });

  it("lists nothing more once its transport went away", async () => {
    const { session, transport, listings } = await openedSession();
    session.ready();
    transport.crash("the server exited");
    transport.pushNotification(TOOLS_CHANGED);
    await session.settled();
    expect(listings()).toBe(1);
  });

  it("tells its connection when a listing after list_changed cannot be read", async () => {
    const { session, transport, failures } = await openedSession();
    session.ready();
    transport.setHandler("tools/list", () => error(-32603, "the listing broke"));
    transport.pushNotification(TOOLS_CHANGED);
    await session.settled();
    expect(failures).toEqual([expect.objectContaining({ code: "mcp_tools_list_failed" })]);
  });

  it("shares one re-listing of an expired stateless catalog among every caller", async () => {
    let description = "v1";
    const handlers = {
      ...statelessFakeServer(),
      "tools/list": () => ok({ ttlMs: 0, tools: [tool({ name: "search", description })] }),
    };
    const transport = new FakeTransport(handlers);
    const setup = sessionParts(transport);
    // The default floor (1 s) would keep ttlMs 0 current for the whole test.
    const parts = { ...setup.parts, listTtl: { minMs: 0, maxMs: 60_000 } };
    const session = await McpSession.open(negotiateEra(transport), parts, undefined);
    await session.discover(undefined, true);
    expect(session.wire.era).toBe("stateless");
    expect(session.relistIfStale()).toBeUndefined();
    session.ready();
    description = "v2";
    const first = session.relistIfStale();
    expect(first).toBeDefined();
    expect(session.relistIfStale()).toBe(first);
    await first;
    expect(transport.requestsFor("tools/list")).toHaveLength(2);
    expect(setup.registry.get("mcp__docs__search")?.description).toContain("v2");
  });
});
