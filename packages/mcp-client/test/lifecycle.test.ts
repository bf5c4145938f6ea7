import { FakeTransport, fakeServer, initializeResult, ok, tool } from "@agent/mcp-testing";
import { McpTransportError } from "@agent/mcp-transport";
import { executeToolCall } from "@agent/tools";
import { describe, expect, it, vi } from "vitest";
import { ALLOW_EXTERNAL, createFakeSetup } from "./harness.js";

const LIST_CHANGED = "notifications/tools/list_changed";
const WIDER_SCHEMA = {
  type: "object",
  properties: { q: { type: "string" }, limit: { type: "integer" } },
  required: ["q"],
  additionalProperties: false,
};

describe("list_changed", () => {
  it("re-runs discovery and replaces the server's tools atomically", async () => {
    const { connection, transport, registry, events } = createFakeSetup(fakeServer({ tools: ["a", "b"] }));
    await connection.start();
    transport.setHandler("tools/list", () => ok({ tools: [tool("b"), tool("c")] }));
    transport.pushNotification(LIST_CHANGED);
    await connection.toolsSettled();
    expect(registry.names().sort()).toEqual(["mcp__docs__b", "mcp__docs__c"]);
    expect(events.ofType("mcp_tools_changed")).toEqual([
      expect.objectContaining({
        server: "docs",
        added: ["mcp__docs__c"],
        removed: ["mcp__docs__a"],
        changed: [],
      }),
    ]);
  });

  it("lists again when list_changed arrives while the first listing is under way", async () => {
    const handlers = fakeServer({ tools: ["search"] });
    const transport: FakeTransport = new FakeTransport({
      ...handlers,
      "tools/list": (params, request) => {
        queueMicrotask(() => {
          transport.setHandler("tools/list", () => ok({ tools: [tool("search"), tool("added_later")] }));
          transport.pushNotification(LIST_CHANGED);
        });
        return handlers["tools/list"]?.(params, request) ?? ok({ tools: [] });
      },
    });
    const { connection, registry } = createFakeSetup({}, { connection: { connect: () => transport } });
    await connection.start();
    await connection.toolsSettled();
    expect(registry.names().sort()).toEqual(["mcp__docs__added_later", "mcp__docs__search"]);
  });

  it("does not list twice for a list_changed sent before the first listing", async () => {
    const { connection, transport } = createFakeSetup({
      ...fakeServer(),
      initialize: () => {
        queueMicrotask(() => transport.pushNotification(LIST_CHANGED));
        return ok(initializeResult());
      },
    });
    await connection.start();
    await connection.toolsSettled();
    expect(transport.requestsFor("tools/list")).toHaveLength(1);
  });

  it("coalesces a burst of notifications into few listings", async () => {
    const { connection, transport } = createFakeSetup(fakeServer());
    await connection.start();
    for (let index = 0; index < 10; index += 1) transport.pushNotification(LIST_CHANGED);
    await connection.toolsSettled();
    expect(transport.requestsFor("tools/list").length).toBeLessThanOrEqual(3);
  });

  it("makes a grant given before a schema change unusable", async () => {
    const { connection, transport, env, approvals } = createFakeSetup(fakeServer());
    await connection.start();
    const first = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    if (first.type !== "waiting") throw new Error("expected the call to be held");
    await approvals.grantApproval(first.requestId);

    const fingerprint = env.registry.get("mcp__docs__search")?.fingerprint;
    transport.setHandler("tools/list", () =>
      ok({ tools: [tool({ name: "search", inputSchema: WIDER_SCHEMA })] }),
    );
    transport.pushNotification(LIST_CHANGED);
    await connection.toolsSettled();
    expect(env.registry.get("mcp__docs__search")?.fingerprint).not.toBe(fingerprint);

    const again = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(again).toMatchObject({ type: "waiting" });
    expect(again.type === "waiting" && again.requestId).not.toBe(first.requestId);
    expect(transport.requestsFor("tools/call")).toHaveLength(0);
  });

  it("uses an unchanged grant exactly once", async () => {
    const { connection, transport, env, approvals } = createFakeSetup(fakeServer());
    await connection.start();
    const held = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    if (held.type !== "waiting") throw new Error("expected the call to be held");
    await approvals.grantApproval(held.requestId);
    expect(await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env)).toMatchObject({
      ok: true,
    });
    expect(await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env)).toMatchObject({
      type: "waiting",
    });
    expect(transport.requestsFor("tools/call")).toHaveLength(1);
  });

  it("fails closed when the new listing cannot be read", async () => {
    const { connection, transport, registry, events } = createFakeSetup(fakeServer());
    await connection.start();
    transport.setHandler("tools/list", () => ok({ nope: true }));
    transport.pushNotification(LIST_CHANGED);
    await connection.toolsSettled();
    expect(registry.names()).toEqual([]);
    expect(connection.state).toBe("failed");
    expect(events.ofType("mcp_server_failed")[0]).toMatchObject({ code: "invalid_tools_list" });
    expect(transport.closeCount).toBe(1);
  });
});

describe("close", () => {
  it("is idempotent, removes the server's tools and reports mcp_closed", async () => {
    const { connection, transport, registry, events } = createFakeSetup(fakeServer());
    await connection.start();
    await Promise.all([connection.close(), connection.close()]);
    expect(transport.closeCount).toBe(1);
    expect(registry.names()).toEqual([]);
    expect(events.ofType("mcp_closed")).toHaveLength(1);
  });

  it("registers nothing when closed while the first listing is under way", async () => {
    let release: () => void = () => {};
    const handlers = fakeServer();
    const { connection, registry, transport } = createFakeSetup({
      ...handlers,
      "tools/list": (params, request) =>
        new Promise((resolve) => {
          release = () => resolve(handlers["tools/list"]?.(params, request) ?? ok({ tools: [] }));
        }),
    });
    // The listing's answer is already on its way: closing does not fail the pending request.
    Object.assign(transport, { close: () => Promise.resolve() });
    const starting = connection.start().catch((error: unknown) => error);
    await vi.waitFor(() => expect(transport.requestsFor("tools/list")).toHaveLength(1));
    await connection.close();
    release();
    expect(await starting).toMatchObject({ code: "mcp_not_connected" });
    expect(registry.names()).toEqual([]);
    expect(connection.state).toBe("closed");
  });

  it("never comes back after close(), even when close() runs during reconnect()", async () => {
    const { connection, transport, registry } = createFakeSetup(fakeServer());
    await connection.start();
    let finishClose: () => void = () => {};
    Object.assign(transport, { close: () => new Promise<void>((resolve) => (finishClose = resolve)) });
    const reconnecting = connection.reconnect().catch((error: unknown) => error);
    const closing = connection.close();
    finishClose();
    await closing;
    expect(await reconnecting).toMatchObject({ code: "mcp_not_connected" });
    await connection.toolsSettled();
    expect(connection.state).toBe("closed");
    expect(registry.names()).toEqual([]);
  });

  it("closes a transport that finishes opening after close(), and close() waits for that close", async () => {
    // The late server takes a while to end, as a stdio server that ignores stdin's end does.
    const late = new FakeTransport(fakeServer(), { closeDelayMs: 20 });
    let open: (transport: FakeTransport) => void = () => {};
    const { connection, registry, events } = createFakeSetup(
      {},
      { connection: { connect: () => new Promise<FakeTransport>((resolve) => (open = resolve)) } },
    );
    const starting = connection.start().catch((error: unknown) => error);
    const closing = connection.close();
    open(late);
    await closing;
    // Once close() resolved, the late transport's close has finished too: no server is left behind.
    expect(events.ofType("mcp_closed")).toHaveLength(1);
    expect(await starting).toMatchObject({ code: "mcp_not_connected" });
    expect(late.closeCount).toBe(1);
    expect(late.methods).toEqual([]);
    expect(registry.names()).toEqual([]);
  });

  it("stops waiting for a connect() that never finishes once closeMs passed, and says so", async () => {
    const { connection, events } = createFakeSetup(
      {},
      { connection: { connect: () => new Promise<FakeTransport>(() => {}), timeouts: { closeMs: 20 } } },
    );
    void connection.start().catch(() => {});
    await connection.close();
    expect(events.ofType("mcp_close_failed")).toMatchObject([
      { server: "docs", message: expect.stringContaining("still opening") },
    ]);
    expect(connection.state).toBe("closed");
  });

  it("turns a failing close into an mcp_close_failed event, not an exception", async () => {
    const { connection, transport, events } = createFakeSetup(fakeServer());
    await connection.start();
    Object.assign(transport, { close: () => Promise.reject(new Error("pipe broke")) });
    await expect(connection.close()).resolves.toBeUndefined();
    expect(events.ofType("mcp_close_failed")[0]).toMatchObject({ server: "docs", message: "pipe broke" });
  });

  it("reports a close the transport says failed (a server that survived SIGKILL) as mcp_close_failed", async () => {
    const { connection, transport, events } = createFakeSetup(fakeServer());
    await connection.start();
    Object.assign(transport, {
      close: async () =>
        transport.reportError(new McpTransportError("close_failed", "process 42 did not exit")),
    });
    await connection.close();
    expect(events.ofType("mcp_close_failed")[0]).toMatchObject({ message: "process 42 did not exit" });
    expect(events.ofType("mcp_closed")).toEqual([]);
  });

  it("gives up on a close that hangs after closeMs", async () => {
    const { connection, transport, events } = createFakeSetup(fakeServer(), {
      connection: { timeouts: { closeMs: 20 } },
    });
    await connection.start();
    Object.assign(transport, { close: () => new Promise(() => {}) });
    await connection.close();
    expect(events.ofType("mcp_close_failed")[0]?.message).toMatch(/within 20 ms/);
  });
});

describe("events", () => {
  it("records initialize, listing and each call with server, method, duration and code, without payloads", async () => {
    const { connection, env, events } = createFakeSetup(fakeServer(), { policy: ALLOW_EXTERNAL });
    await connection.start();
    await executeToolCall({ name: "mcp__docs__search", input: { q: "secret query" }, callId: "c1" }, env);
    expect(events.ofType("mcp_initialized")[0]).toMatchObject({
      server: "docs",
      protocolVersion: "2025-06-18",
    });
    const requests = events.ofType("mcp_request_finished");
    expect(requests.map((event) => event.method)).toEqual(["initialize", "tools/list"]);
    expect(requests.every((event) => event.durationMs >= 0)).toBe(true);
    // A call's request is in the call's outcome record.
    const [finished] = events.ofType("tool_call_finished");
    expect(finished).toMatchObject({ ok: true, callId: "c1", toolName: "mcp__docs__search", server: "docs" });
    expect(finished?.request).toMatchObject({ server: "docs", method: "tools/call", ok: true });
    expect(finished?.request?.durationMs).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(events.events)).not.toContain("secret query");
  });
});

describe("reconnect", () => {
  it("reconnects after a crash with backoff, compares definitions, and never retries the call", async () => {
    const first = new FakeTransport(fakeServer());
    const second = new FakeTransport(
      fakeServer({ tools: [tool({ name: "search", inputSchema: WIDER_SCHEMA })] }),
    );
    const pending = [first, second];
    const { connection, env, events, registry } = createFakeSetup(
      {},
      {
        policy: ALLOW_EXTERNAL,
        connection: {
          connect: () => pending.shift() ?? new FakeTransport(),
          reconnect: { initialDelayMs: 1, maxDelayMs: 4, maxAttempts: 3 },
        },
      },
    );
    first.setHandler("tools/call", () => {
      first.crash();
      return new Promise(() => {});
    });
    await connection.start();
    const before = registry.get("mcp__docs__search")?.fingerprint;

    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "mcp_error", code: -32000 });
    await connection.toolsSettled();

    expect(connection.state).toBe("ready");
    expect(second.methods).toEqual(["initialize", "notifications/initialized", "tools/list"]);
    expect(events.ofType("mcp_server_exited")).toHaveLength(1);
    expect(events.ofType("mcp_reconnecting")[0]).toMatchObject({ attempt: 1, delayMs: 1 });
    expect(events.ofType("mcp_tools_changed")[0]).toMatchObject({ changed: ["mcp__docs__search"] });
    expect(registry.get("mcp__docs__search")?.fingerprint).not.toBe(before);

    const next = await executeToolCall({ name: "mcp__docs__search", input: { q: "y", limit: 2 } }, env);
    expect(next).toMatchObject({ ok: true });
    expect(first.requestsFor("tools/call")).toHaveLength(1);
    expect(second.requestsFor("tools/call")).toHaveLength(1);
    await connection.close();
  });

  it("gives up after the last attempt and removes the server's tools", async () => {
    const first = new FakeTransport(fakeServer());
    let connects = 0;
    const { connection, registry, events } = createFakeSetup(
      {},
      {
        connection: {
          connect: () => {
            connects += 1;
            if (connects === 1) return first;
            throw new Error("spawn failed");
          },
          reconnect: { initialDelayMs: 1, maxDelayMs: 2, maxAttempts: 2 },
        },
      },
    );
    await connection.start();
    first.crash();
    await connection.toolsSettled();
    expect(connection.state).toBe("failed");
    expect(registry.names()).toEqual([]);
    expect(events.ofType("mcp_reconnecting")).toHaveLength(2);
    expect(connection.error?.message).toMatch(/did not come back after 2 attempts/);
  });
});

describe("server identity", () => {
  it("makes an approval for one server's tool useless for the same tool of a server reached differently", async () => {
    const staging = createFakeSetup(fakeServer(), {
      connection: { identity: "https://staging.example/mcp" },
    });
    const production = createFakeSetup(fakeServer(), {
      connection: { identity: "https://prod.example/mcp" },
    });
    const same = createFakeSetup(fakeServer(), { connection: { identity: "https://staging.example/mcp" } });
    await Promise.all([staging.connection.start(), production.connection.start(), same.connection.start()]);
    const fingerprint = (setup: typeof staging) => setup.registry.get("mcp__docs__search")?.fingerprint;
    expect(fingerprint(staging)).not.toBe(fingerprint(production));
    expect(fingerprint(staging)).toBe(fingerprint(same));
  });
});
