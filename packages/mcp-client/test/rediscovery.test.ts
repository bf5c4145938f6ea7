import { type McpToolDescriptor, type RemoteToolPort, toLocalTool } from "@agent/mcp-client";
import { fakeServer, OBJECT_SCHEMA, ok, tool } from "@agent/mcp-testing";
import { MCP_ERROR_CODES, mcpFailure } from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";
import { createFakeSetup, EMPTY_ANSWERS } from "./harness.js";

const LIST_CHANGED = "notifications/tools/list_changed";

function descriptor(overrides: Partial<McpToolDescriptor> = {}): McpToolDescriptor {
  return {
    server: "docs",
    remoteName: "search",
    description: "Searches the docs",
    inputSchema: structuredClone(OBJECT_SCHEMA) as unknown as Record<string, unknown>,
    outputSchema: undefined,
    annotations: undefined,
    title: undefined,
    ...overrides,
  };
}

describe("rediscovery", () => {
  it("keeps the registered tool of an unchanged definition, and replaces a changed one", async () => {
    const { connection, transport, registry, events } = createFakeSetup(
      fakeServer({ tools: ["kept", "edited"] }),
    );
    await connection.start();
    const kept = registry.get("mcp__docs__kept");
    const edited = registry.get("mcp__docs__edited");
    transport.setHandler("tools/list", () =>
      ok({
        // A fresh copy, as a real server's answer is: equal content must be enough.
        tools: [structuredClone(tool("kept")), tool({ name: "edited", description: "Now different" })],
      }),
    );
    transport.pushNotification(LIST_CHANGED);
    await connection.toolsSettled();
    expect(registry.get("mcp__docs__kept")).toBe(kept);
    expect(registry.get("mcp__docs__edited")).not.toBe(edited);
    expect(registry.get("mcp__docs__edited")?.fingerprint).not.toBe(edited?.fingerprint);
    expect(events.ofType("mcp_tools_changed")).toEqual([
      expect.objectContaining({ added: [], removed: [], changed: ["mcp__docs__edited"] }),
    ]);
  });

  it("replaces a tool whose definition changed anywhere: deep in a schema, its annotations, title or output", async () => {
    const deepSchema = (item: unknown) => ({
      type: "object",
      properties: { tags: { type: "array", items: item, description: "Tags" } },
    });
    const outputSchema = { type: "object", properties: { hits: { type: "integer" } } };
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      [
        "a nested keyword",
        { inputSchema: deepSchema({ type: "string" }) },
        { inputSchema: deepSchema({ type: "integer" }) },
      ],
      [
        "an added property",
        {},
        {
          inputSchema: {
            ...OBJECT_SCHEMA,
            properties: { ...OBJECT_SCHEMA.properties, n: { type: "number" } },
          },
        },
      ],
      ["the annotations", { annotations: { readOnlyHint: true } }, { annotations: { readOnlyHint: false } }],
      ["the title", { title: "Search" }, { title: "Find" }],
      ["an output schema", {}, { outputSchema }],
      ["a required list", {}, { inputSchema: { ...OBJECT_SCHEMA, required: [] } }],
    ];
    for (const [what, first, second] of cases) {
      const { connection, transport, registry } = createFakeSetup(
        fakeServer({ tools: [tool({ name: "search", ...first })] }),
      );
      await connection.start();
      const before = registry.get("mcp__docs__search");
      transport.setHandler("tools/list", () =>
        ok({ tools: [tool({ name: "search", ...first, ...second })] }),
      );
      await connection.refreshTools();
      expect(registry.get("mcp__docs__search"), what).not.toBe(before);
      // And listed again unchanged, as a fresh copy, the new one is kept.
      const after = registry.get("mcp__docs__search");
      transport.setHandler("tools/list", () =>
        ok({ tools: [structuredClone(tool({ name: "search", ...first, ...second }))] }),
      );
      await connection.refreshTools();
      expect(registry.get("mcp__docs__search"), what).toBe(after);
      await connection.close();
    }
  });

  it("compares with what was listed, even when an in-process server changes the very object it listed", async () => {
    const schema = { type: "object", properties: { q: { type: "string" } } };
    const { connection, registry } = createFakeSetup({
      ...fakeServer(),
      "tools/list": () => ok({ tools: [{ name: "search", description: "Search", inputSchema: schema }] }),
    });
    await connection.start();
    const before = registry.get("mcp__docs__search");
    schema.properties.q.type = "integer";
    await connection.refreshTools();
    expect(registry.get("mcp__docs__search")).not.toBe(before);
    expect(registry.get("mcp__docs__search")?.fingerprint).not.toBe(before?.fingerprint);
  });

  it("does not report a definition whose keys were merely reordered as changed", async () => {
    const { connection, transport, registry, events } = createFakeSetup(fakeServer({ tools: ["search"] }));
    await connection.start();
    const before = registry.get("mcp__docs__search")?.fingerprint;
    const { required, additionalProperties, properties, type } = OBJECT_SCHEMA;
    const reordered = { required, additionalProperties, properties, type };
    transport.setHandler("tools/list", () =>
      ok({ tools: [{ inputSchema: reordered, description: "The search tool", name: "search" }] }),
    );
    await connection.refreshTools();
    expect(registry.get("mcp__docs__search")?.fingerprint).toBe(before);
    expect(events.ofType("mcp_tools_changed")).toEqual([]);
  });
});

describe("rediscovery abandoned at close", () => {
  it("cancels the refresh on the wire but records no cancelled tools/list of its own", async () => {
    const { connection, transport, events } = createFakeSetup(fakeServer({ tools: ["search"] }));
    await connection.start();
    // The refresh a list_changed starts is still waiting for its answer when the connection closes.
    transport.setHandler("tools/list", () => new Promise(() => {}));
    transport.pushNotification(LIST_CHANGED);
    await expect.poll(() => transport.requestsFor("tools/list").length).toBe(2);
    await connection.close();
    await connection.toolsSettled();
    const refresh = transport.requestsFor("tools/list")[1];
    expect(refresh?.outcome).toBe("cancelled");
    expect(transport.cancelledRequestIds).toContain(refresh?.id);
    const listings = events.ofType("mcp_request_finished").filter((event) => event.method === "tools/list");
    expect(listings).toEqual([expect.objectContaining({ ok: true })]);
    expect(events.ofType("mcp_server_failed")).toEqual([]);
  });

  it("still records a refresh that the server itself failed", async () => {
    const { connection, transport, events } = createFakeSetup(fakeServer({ tools: ["search"] }));
    await connection.start();
    transport.setHandler("tools/list", () => mcpFailure(MCP_ERROR_CODES.internalError, "broken"));
    transport.pushNotification(LIST_CHANGED);
    await connection.toolsSettled();
    await connection.close();
    const listings = events.ofType("mcp_request_finished").filter((event) => event.method === "tools/list");
    expect(listings.map((event) => event.ok)).toEqual([true, false]);
  });
});

describe("toLocalTool", () => {
  it("builds the tool from a copy: changing the descriptor afterwards changes nothing", () => {
    const source = descriptor();
    const mapped = toLocalTool(source, EMPTY_ANSWERS);
    if (!mapped.ok) throw new Error(mapped.reason);
    const pristine = toLocalTool(descriptor(), EMPTY_ANSWERS);
    if (!pristine.ok) throw new Error(pristine.reason);
    (source.inputSchema.properties as Record<string, unknown>).q = { type: "integer" };
    source.description = "changed";
    expect(mapped.tool.parameters).toEqual(pristine.tool.parameters);
    expect(mapped.tool.fingerprint).toBe(pristine.tool.fingerprint);
    expect(mapped.tool.prepare({ q: "text" }).ok).toBe(true);
  });

  it("rejects at once what no fingerprint can be computed of", () => {
    expect(toLocalTool(descriptor({ description: "broken \ud800 text" }), EMPTY_ANSWERS)).toEqual({
      ok: false,
      reason: "invalid_tool_definition: a string contains a lone surrogate",
    });
  });

  it("maps the answer of a port that does not answer with a native promise", async () => {
    const result = { content: [{ type: "text", text: "hit" }] };
    const ports: RemoteToolPort[] = [
      // A JavaScript port answering at once, and one answering with a thenable: both were awaited before.
      { callTool: () => ({ ok: true, result }) as never },
      {
        callTool: () =>
          ({
            // biome-ignore lint/suspicious/noThenProperty: a port answering with a thenable, not a promise
            then(resolve: (answer: unknown) => void): void {
              resolve({ ok: true, result });
            },
          }) as never,
      },
    ];
    for (const port of ports) {
      const mapped = toLocalTool(descriptor(), port);
      if (!mapped.ok) throw new Error(mapped.reason);
      const prepared = mapped.tool.prepare({ q: "x" });
      if (!prepared.ok) throw new Error("the input did not validate");
      const context = {
        signal: new AbortController().signal,
        callId: "c",
        runId: "r",
        cwd: "/",
        reportProgress() {},
      };
      expect(await prepared.execute(context)).toEqual({ content: result.content });
    }
  });

  it("rejects an unusable remote name instead of throwing", () => {
    expect(toLocalTool(descriptor({ remoteName: "two words" }), EMPTY_ANSWERS)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^invalid_tool_name: /),
    });
  });
});
