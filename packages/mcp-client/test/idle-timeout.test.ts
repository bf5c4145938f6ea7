import { McpServerConnection, type McpServerConnectionOptions } from "@agent/mcp-client";
import { FakeTransport, fakeServer, ok, textContent, tool } from "@agent/mcp-testing";
import { createPolicyGate, definePolicy, InMemoryApprovalStore } from "@agent/policy";
import {
  createMemoryEventSink,
  type ExecutionEnvironment,
  executeToolCall,
  ToolRegistry,
} from "@agent/tools";
import { describe, expect, it } from "vitest";

/** A connection whose every (re)connect opens a new FakeTransport on `handlers()`. */
function idleSetup(
  handlers: () => ReturnType<typeof fakeServer>,
  idleTimeoutMs = 30,
  reconnect?: McpServerConnectionOptions["reconnect"],
) {
  const transports: FakeTransport[] = [];
  const registry = new ToolRegistry();
  const events = createMemoryEventSink();
  const connection = new McpServerConnection({
    name: "docs",
    registry,
    events,
    idleTimeoutMs,
    ...(reconnect ? { reconnect } : {}),
    connect: () => {
      const transport = new FakeTransport(handlers());
      transports.push(transport);
      return transport;
    },
  });
  const env: ExecutionEnvironment = {
    registry,
    gate: createPolicyGate({
      policy: definePolicy({ defaults: { external: "allow" } }),
      approvals: new InMemoryApprovalStore(),
    }),
    runId: "run_idle",
    cwd: "/work",
    events,
    timeoutMs: 5_000,
  };
  return { transports, registry, events, connection, env };
}

async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("idle timeout", () => {
  it("closes an idle connection, keeps its tools, and reopens it on the next call", async () => {
    const { transports, registry, events, connection, env } = idleSetup(() => fakeServer());
    await connection.start();
    await until(() => connection.state === "dormant");
    expect(transports[0]?.closed).toBe(true);
    expect(events.ofType("mcp_idle_closed")).toEqual([
      expect.objectContaining({ server: "docs", idleMs: 30 }),
    ]);
    expect(registry.names()).toEqual(["mcp__docs__search"]);

    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "again" } }, env);
    expect(outcome).toMatchObject({ ok: true, output: { content: [textContent('{"q":"again"}')] } });
    expect(transports).toHaveLength(2);
    // A full handshake and discovery on the new connection, then the call.
    expect(transports[1]?.methods).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/list",
      "tools/call",
    ]);
    await connection.close();
  });

  it("never closes while a call is in flight", async () => {
    let release: () => void = () => {};
    const { transports, connection, env } = idleSetup(() => ({
      ...fakeServer(),
      "tools/call": () =>
        new Promise((resolve) => {
          release = () => resolve(ok({ content: [textContent("late")] }));
        }),
    }));
    await connection.start();
    const pending = executeToolCall({ name: "mcp__docs__search", input: { q: "slow" } }, env);
    await until(() => transports[0]?.requestsFor("tools/call").length === 1);
    // Far longer than the idle time: still open, because the call has not ended.
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(connection.state).toBe("ready");
    release();
    expect(await pending).toMatchObject({ ok: true });
    await until(() => connection.state === "dormant");
    await connection.close();
  });

  it("refuses a call whose tool changed while the connection slept: it was approved for the old one", async () => {
    let description = "v1";
    const { transports, registry, events, connection, env } = idleSetup(() =>
      fakeServer({ tools: [tool({ name: "search", description })] }),
    );
    await connection.start();
    const before = registry.get("mcp__docs__search")?.fingerprint;
    await until(() => connection.state === "dormant");
    description = "v2";
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "mcp_unavailable" });
    expect(transports[1]?.requestsFor("tools/call")).toHaveLength(0);
    expect(registry.get("mcp__docs__search")?.fingerprint).not.toBe(before);
    expect(events.ofType("mcp_tools_changed")[0]).toMatchObject({ changed: ["mcp__docs__search"] });
    // Called again, against the new definition, it goes through.
    expect(await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env)).toMatchObject({
      ok: true,
    });
    await connection.close();
  });

  it("fails the server when it cannot be reopened, and says so to the caller", async () => {
    let up = true;
    const { connection, registry, env } = idleSetup(() =>
      up ? fakeServer() : { initialize: () => ok({ protocolVersion: "1999-01-01" }) },
    );
    await connection.start();
    await until(() => connection.state === "dormant");
    up = false;
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false });
    expect(connection.state).toBe("failed");
    expect(connection.error?.code).toBe("unsupported_protocol_version");
    expect(registry.names()).toEqual([]);
    await connection.close();
  });

  it("hands a failed wake to the reconnector when it has a reconnect policy: the server comes back", async () => {
    // The second server (the wake's) answers a version the client does not speak; the others are fine.
    let opened = 0;
    const { connection, registry, events, env } = idleSetup(
      () => (++opened === 2 ? { initialize: () => ok({ protocolVersion: "1999-01-01" }) } : fakeServer()),
      30,
      { maxAttempts: 2, initialDelayMs: 0, maxDelayMs: 0 },
    );
    await connection.start();
    await until(() => connection.state === "dormant");
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "mcp_unavailable" });
    await connection.toolsSettled();
    expect(events.ofType("mcp_server_failed")).toEqual([]);
    expect(events.ofType("mcp_reconnecting")).toHaveLength(1);
    expect(registry.names()).toEqual(["mcp__docs__search"]);
    expect(await executeToolCall({ name: "mcp__docs__search", input: { q: "y" } }, env)).toMatchObject({
      ok: true,
    });
    await connection.close();
  });

  it("rejects an idle timeout that is not a positive number", () => {
    expect(
      () =>
        new McpServerConnection({
          name: "docs",
          registry: new ToolRegistry(),
          connect: () => new FakeTransport(),
          idleTimeoutMs: 0,
        }),
    ).toThrow(/idleTimeoutMs/);
  });
});
