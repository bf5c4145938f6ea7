/**
 * A connection under races between its handshakes: a call is never routed to a session that ended,
 * two handshakes never run at once (a reconnect, a wake and the reconnector's attempt take turns),
 * and close() waits for every transport it let go.
 */
import { error, FakeTransport, fakeServer } from "@agent/mcp-testing";
import { createMemoryEventSink, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { McpServerConnection } from "../src/index.js";
import { actingOnAnswer, connectEachTime, connectionEachTime, runAuthorized } from "./harness.js";

const TOOLS_CHANGED = "notifications/tools/list_changed";

describe("a connection whose handshakes race", () => {
  it("answers a call made while reconnect() lets the old transport go as not connected, never on the ended session", async () => {
    const registry = new ToolRegistry();
    const { transports, connect } = connectEachTime(() => fakeServer());
    const connection = new McpServerConnection({ name: "docs", registry, connect });
    await connection.start();
    const tool = registry.get("mcp__docs__search");
    // reconnect() lets the old transport go at once, then waits for it to close (for stdio: up to
    // stdin's end, SIGTERM, SIGKILL); a call made meanwhile is one the old session must not take.
    const reconnecting = connection.reconnect();
    const stateMeanwhile = connection.state;
    const outcome = await runAuthorized(tool, { q: "x" });
    await reconnecting;
    expect(outcome).toMatchObject({ error: "mcp_unavailable" });
    expect(transports[0]?.requestsFor("tools/call")).toEqual([]);
    expect(stateMeanwhile).not.toBe("ready");
    await connection.close();
  });

  it("opens no second transport when a crash's reconnect run finds the connection already brought back by reconnect()", async () => {
    const registry = new ToolRegistry();
    const events = createMemoryEventSink();
    // The transport reconnect() opens also lists "orphan", so its listings are told apart.
    const { transports, connect } = connectEachTime(() =>
      fakeServer({ tools: transports.length === 1 ? ["search", "orphan"] : ["search"] }),
    );
    const connection = new McpServerConnection({
      name: "docs",
      registry,
      events,
      connect,
      reconnect: { maxAttempts: 1, initialDelayMs: 20, maxDelayMs: 20 },
      features: { roots: [{ uri: "file:///work", name: "work" }] },
    });
    await connection.start();
    transports[0]?.crash("the server exited");
    await connection.reconnect();
    expect(connection.state).toBe("ready");
    // The crash's run waits its delay, then finds a ready connection and opens nothing over it.
    await connection.toolsSettled();
    expect(transports).toHaveLength(2);
    expect(transports.map((transport) => transport.closed)).toEqual([true, false]);
    // The session reconnect() made is the one listening: its list_changed is answered on it.
    transports[1]?.pushNotification(TOOLS_CHANGED);
    await connection.toolsSettled();
    expect(transports[1]?.requestsFor("tools/list")).toHaveLength(2);
    expect(registry.get("mcp__docs__orphan")).toBeDefined();
    await connection.close();
    // close() lets go of every transport the connection opened: none may still read the roots.
    expect(await transports[1]?.serverRequest("roots/list")).toMatchObject({ ok: false });
    expect(transports.every((transport) => transport.closed)).toBe(true);
  });

  it("keeps one transport open when reconnect() runs while a call wakes a dormant connection", async () => {
    const registry = new ToolRegistry();
    const { transports, connect } = connectEachTime(() => fakeServer());
    // Dormant soon after each wake, so the test waits for no clock; the leak is the second wake's transport.
    const connection = new McpServerConnection({ name: "docs", registry, connect, idleTimeoutMs: 1 });
    await connection.start();
    await expect.poll(() => connection.state).toBe("dormant");
    const waking = runAuthorized(registry.get("mcp__docs__search"), { q: "x" });
    const reconnecting = connection.reconnect();
    const [outcome, reconnected] = await Promise.allSettled([waking, reconnecting]);
    expect(reconnected.status).toBe("fulfilled");
    // The reconnect lets the woken transport go: the call made on it is answered, not left hanging
    // (not connected, or closed under it, as the two happened to interleave).
    expect(outcome.status).toBe("fulfilled");
    const answer = outcome.status === "fulfilled" ? outcome.value : undefined;
    expect(["mcp_unavailable", "mcp_error"]).toContain((answer as { error?: string } | undefined)?.error);
    expect(transports.filter((transport) => !transport.closed)).toHaveLength(1);
    await connection.close();
    expect(transports.every((transport) => transport.closed)).toBe(true);
  });

  it("lets reconnect() report a wake that fails while it waits on it: the connection is not failed first", async () => {
    const registry = new ToolRegistry();
    const events = createMemoryEventSink();
    let refuseWake: () => void = () => {};
    // The second server (the wake's) refuses its handshake when the test says; the others are fine.
    const { transports, connect } = connectEachTime(() =>
      transports.length === 1
        ? { initialize: () => new Promise((resolve) => (refuseWake = () => resolve(error(-32603, "no")))) }
        : fakeServer(),
    );
    const connection = new McpServerConnection({ name: "docs", registry, events, connect, idleTimeoutMs: 1 });
    await connection.start();
    await expect.poll(() => connection.state).toBe("dormant");
    const waking = runAuthorized(registry.get("mcp__docs__search"), { q: "x" });
    await expect.poll(() => transports[1]?.requestsFor("initialize").length).toBe(1);
    const reconnecting = connection.reconnect();
    refuseWake();
    await reconnecting;
    expect(await waking).toMatchObject({ error: "mcp_unavailable" });
    expect(events.ofType("mcp_server_failed")).toEqual([]);
    expect(registry.get("mcp__docs__search")).toBeDefined();
    await connection.close();
  });

  it("resolves close() only once the transport reconnect() was letting go has closed too", async () => {
    const events = createMemoryEventSink();
    const transports: FakeTransport[] = [];
    // The first server takes a while to end, as a stdio server that ignores stdin's end does.
    const connect = () => {
      const options = transports.length === 0 ? { closeDelayMs: 50 } : {};
      const transport = new FakeTransport(fakeServer(), options);
      transports.push(transport);
      return transport;
    };
    const connection = new McpServerConnection({
      name: "docs",
      registry: new ToolRegistry(),
      events,
      connect,
    });
    await connection.start();
    const reconnecting = connection.reconnect();
    await connection.close();
    // Once close() resolved, an exiting process leaves no server behind: every close has finished.
    const finished = events.ofType("mcp_closed").length + events.ofType("mcp_close_failed").length;
    expect(finished).toBe(transports.length);
    await expect(reconnecting).rejects.toMatchObject({ code: "mcp_not_connected" });
  });

  it("lets a reconnect() begun as the first listing is answered replace that handshake once it is done", async () => {
    let reconnecting: Promise<void> | undefined;
    const { sink, events } = actingOnAnswer("tools/list", () => {
      reconnecting = made.connection.reconnect();
    });
    const made = connectionEachTime(() => fakeServer(), { events: sink });
    await made.connection.start();
    await reconnecting;
    expect(made.connection.state).toBe("ready");
    expect(made.transports.map((transport) => transport.closed)).toEqual([true, false]);
    expect(made.transports[1]?.requestsFor("tools/list")).toHaveLength(1);
    expect(events.ofType("mcp_server_failed")).toEqual([]);
    await made.connection.close();
  });
});
