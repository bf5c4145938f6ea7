/**
 * The specification's tests (E02, step 6): the positive path and the six negative groups, each
 * asserting both the outcome and what did (not) reach the transport.
 */
import { initializeServer, listTools, toLocalTool } from "@agent/mcp-client";
import { FakeTransport, fakeServer, tool } from "@agent/mcp-testing";
import { MCP_ERROR_CODES } from "@agent/mcp-transport";
import { defineTool, executeToolCall, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ALLOW_EXTERNAL, createFakeSetup, EMPTY_ANSWERS } from "./harness.js";

const context = () => ({ signal: new AbortController().signal, timeoutMs: 1_000 });
const never = () => new Promise<never>(() => {});

describe("MCP tools as local tools", () => {
  it("maps remote tools into namespaced external tools", async () => {
    const transport = new FakeTransport(
      fakeServer({ tools: [tool({ name: "search", description: "Docs search" })] }),
    );
    await initializeServer(transport, context());
    const listing = await listTools("docs", transport, context());
    const registry = new ToolRegistry();
    registry.registerAll(
      listing.tools.map((descriptor) => {
        const mapped = toLocalTool(descriptor, EMPTY_ANSWERS);
        if (!mapped.ok) throw new Error(mapped.reason);
        return mapped.tool;
      }),
    );
    expect(registry.names()).toEqual(["mcp__docs__search"]);
    expect(registry.get("mcp__docs__search")?.effect).toBe("external");
    expect(transport.methods).toEqual(["initialize", "notifications/initialized", "tools/list"]);
    expect(transport.calls[1]?.kind).toBe("notification");
  });

  it("does the same through a server connection", async () => {
    const { connection, registry, transport } = createFakeSetup(fakeServer({ tools: ["search"] }));
    await connection.start();
    expect(registry.names()).toEqual(["mcp__docs__search"]);
    expect(registry.get("mcp__docs__search")).toMatchObject({
      effect: "external",
      description: "The search tool",
    });
    expect(transport.methods).toEqual(["initialize", "notifications/initialized", "tools/list"]);
  });
});

describe("the six negative groups", () => {
  it("1. an unknown tool is unknown_tool and never reaches the transport", async () => {
    const { connection, transport, env } = createFakeSetup(fakeServer(), { policy: ALLOW_EXTERNAL });
    await connection.start();
    const before = transport.calls.length;
    const outcome = await executeToolCall({ name: "mcp__docs__missing", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ type: "observation", ok: false, error: "unknown_tool" });
    expect(transport.calls.length).toBe(before);
  });

  it("2. a schema mismatch is invalid_arguments with zero remote calls", async () => {
    const { connection, transport, env } = createFakeSetup(fakeServer(), { policy: ALLOW_EXTERNAL });
    await connection.start();
    const missing = await executeToolCall({ name: "mcp__docs__search", input: {} }, env);
    const extra = await executeToolCall({ name: "mcp__docs__search", input: { q: "x", sneaky: 1 } }, env);
    expect(missing).toMatchObject({ ok: false, error: "invalid_arguments", issues: [{ path: ["q"] }] });
    expect(extra).toMatchObject({ ok: false, error: "invalid_arguments" });
    expect(transport.requestsFor("tools/call")).toHaveLength(0);
  });

  it("3. a server that never answers gives timeout, and the abort reaches the transport", async () => {
    const { connection, transport, env } = createFakeSetup(
      { ...fakeServer(), "tools/call": never },
      { policy: ALLOW_EXTERNAL },
    );
    await connection.start();
    env.timeoutMs = 25;
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "timeout" });
    const [call] = transport.requestsFor("tools/call");
    expect(call?.signal.aborted).toBe(true);
    expect(transport.cancelledRequestIds).toEqual([call?.id]);
  });

  it("4. a name clash fails the server's start and leaves the registry unchanged", async () => {
    const registry = new ToolRegistry();
    const readFile = defineTool({
      name: "read_file",
      description: "local",
      schema: z.object({}),
      effect: "read",
      execute: () => "",
    });
    const squatter = defineTool({
      name: "mcp__docs__read_file",
      description: "a local tool that owns this name",
      schema: z.object({}),
      effect: "read",
      execute: () => "",
    });
    registry.registerAll([readFile, squatter]);
    const { connection } = createFakeSetup(fakeServer({ tools: ["search", "read_file"] }), { registry });
    await expect(connection.start()).rejects.toMatchObject({ code: "tool_name_clash", server: "docs" });
    expect(registry.names()).toEqual(["read_file", "mcp__docs__read_file"]);
    expect(registry.get("read_file")).toBe(readFile);
    expect(registry.get("mcp__docs__read_file")).toBe(squatter);
    expect(connection.state).toBe("failed");
    expect(() => registry.register({ ...readFile, description: "remote" })).toThrowError(
      expect.objectContaining({ code: "duplicate_tool" }),
    );
  });

  it("5. readOnlyHint is not trusted: the call still goes through authorize and is not executed", async () => {
    const readOnly = tool({ name: "search", annotations: { readOnlyHint: true } });
    const asked = createFakeSetup(fakeServer({ tools: [readOnly] }));
    await asked.connection.start();
    expect(asked.registry.get("mcp__docs__search")?.effect).toBe("external");
    const waiting = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, asked.env);
    expect(waiting).toMatchObject({ type: "waiting", reason: "approval_required" });

    const denied = createFakeSetup(fakeServer({ tools: [readOnly] }), {
      policy: { rules: [{ tool: "mcp__docs__*", decision: "deny", reason: "docs are off limits" }] },
    });
    await denied.connection.start();
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, denied.env);
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied" });

    expect(asked.transport.requestsFor("tools/call")).toHaveLength(0);
    expect(denied.transport.requestsFor("tools/call")).toHaveLength(0);
  });

  it("6a. a crash mid-call is an mcp_error observation with the transport's code", async () => {
    let setup: ReturnType<typeof createFakeSetup> | undefined;
    setup = createFakeSetup(
      {
        ...fakeServer(),
        "tools/call": () => {
          setup?.transport.crash();
          return never();
        },
      },
      { policy: ALLOW_EXTERNAL },
    );
    await setup.connection.start();
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, setup.env);
    expect(outcome).toMatchObject({ ok: false, error: "mcp_error", code: MCP_ERROR_CODES.connectionClosed });
    expect(setup.connection.state).toBe("disconnected");
    const later = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, setup.env);
    expect(later).toMatchObject({ ok: false, error: "mcp_unavailable" });
  });

  it("6b. cancelling reports cancelled, then close() is called once, with no unhandled rejection", async () => {
    const controller = new AbortController();
    const { connection, transport, env } = createFakeSetup(
      {
        ...fakeServer(),
        "tools/call": () => {
          setTimeout(() => controller.abort(), 5);
          return never();
        },
      },
      { policy: ALLOW_EXTERNAL },
    );
    await connection.start();
    env.signal = controller.signal;
    const outcome = await executeToolCall({ name: "mcp__docs__search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "cancelled" });
    expect(transport.requestsFor("tools/call")[0]?.signal.aborted).toBe(true);
    await Promise.all([connection.close(), connection.close()]);
    await connection.close();
    expect(transport.closeCount).toBe(1);
    expect(connection.state).toBe("closed");
  });
});
