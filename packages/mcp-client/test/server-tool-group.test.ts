import { type FakeToolSpec, FakeTransport, fakeServer } from "@agent/mcp-testing";
import { createMemoryEventSink, defineTool, type RegisteredTool, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { protocolFeatures } from "../src/protocol-version.js";
import { ServerToolGroup } from "../src/server-tool-group.js";
import { mcpToolGroup, type RemoteToolPort } from "../src/tool-mapping.js";

// Discovery never calls a tool: a call through this port would be a bug of the test.
const port: RemoteToolPort = { callTool: () => Promise.reject(new Error("no tool is called in discovery")) };
const FEATURES = protocolFeatures("2025-11-25");
const none = async (): Promise<readonly RegisteredTool[]> => [];

/** A server whose listing the test changes between discoveries, and a group for it. */
function world(include?: (remoteName: string) => boolean) {
  let tools: (FakeToolSpec | string)[] = ["search", "read"];
  const transport = new FakeTransport({
    // The listing of the tools as they are now: a fake server made afresh from them.
    "tools/list": (params, request) => {
      const listTools = fakeServer({ tools })["tools/list"];
      if (!listTools) throw new Error("fakeServer lists tools");
      return listTools(params, request);
    },
  });
  const registry = new ToolRegistry();
  const events = createMemoryEventSink();
  const group = new ServerToolGroup({
    server: "docs",
    registry,
    events,
    port,
    limits: {},
    ...(include ? { include } : {}),
  });
  const run = { server: "docs", transport, events, signal: undefined, timeoutMs: 5_000 };
  const discover = (extra = none) => group.discover(run, FEATURES, extra);
  return { group, registry, events, discover, list: (next: (FakeToolSpec | string)[]) => (tools = next) };
}

const names = (tools: readonly RegisteredTool[]) => tools.map((tool) => tool.name).sort();

describe("ServerToolGroup", () => {
  it("registers the listing's tools and says so; the first listing is no change", async () => {
    const { group, registry, events, discover } = world();
    const change = await discover();
    expect(change.added.sort()).toEqual(["mcp__docs__read", "mcp__docs__search"]);
    expect(names(registry.listGroup(group.name))).toEqual(["mcp__docs__read", "mcp__docs__search"]);
    expect(events.ofType("mcp_tools_listed")).toMatchObject([
      { server: "docs", count: 2, rejected: 0, pages: 1 },
    ]);
    expect(events.ofType("mcp_tools_changed")).toEqual([]);
  });

  it("reports what a later listing added, removed and changed, and keeps unchanged tools as they were", async () => {
    const { group, events, discover, list } = world();
    await discover();
    const search = group.currentTool("search");
    list(["search", { name: "write", description: "Writes" }]);
    await discover();
    expect(events.ofType("mcp_tools_changed")).toMatchObject([
      { server: "docs", added: ["mcp__docs__write"], removed: ["mcp__docs__read"], changed: [] },
    ]);
    expect(group.currentTool("search")).toBe(search);
    list(["search", { name: "write", description: "Writes, now elsewhere" }]);
    await discover();
    expect(events.ofType("mcp_tools_changed").at(-1)).toMatchObject({ changed: ["mcp__docs__write"] });
  });

  it("records each rejected and excluded tool, and registers neither", async () => {
    const { group, registry, events, discover, list } = world((name) => name !== "secret");
    list(["search", "secret", { name: "odd", inputSchema: { type: "object", dependentSchemas: { a: {} } } }]);
    await discover();
    expect(names(registry.listGroup(group.name))).toEqual(["mcp__docs__search"]);
    expect(group.excluded).toEqual(["secret"]);
    expect(group.rejected).toEqual([
      { remoteName: "odd", reason: expect.stringMatching(/^unsupported_input_schema/) },
    ]);
    expect(events.ofType("mcp_tool_rejected")).toMatchObject([{ server: "docs", remoteName: "odd" }]);
    expect(events.ofType("mcp_tools_listed")).toMatchObject([{ count: 1, rejected: 1 }]);
  });

  it("registers the extra tools with the listed ones, and nothing at all when the extra step throws", async () => {
    const { group, registry, discover } = world();
    // A built-in tool of the server (resources, prompts) belongs to its group, as the listed ones do.
    const builtin: RegisteredTool = {
      ...defineTool({
        name: "mcp__docs__read_resource",
        description: "Reads a resource",
        schema: z.object({ uri: z.string() }),
        effect: "external",
        execute: () => "",
      }),
      group: mcpToolGroup("docs"),
    };
    await discover(async () => [builtin]);
    expect(registry.get("mcp__docs__read_resource")).toBe(builtin);
    const before = names(registry.listGroup(group.name));
    await expect(
      discover(async () => {
        throw new Error("the connection closed meanwhile");
      }),
    ).rejects.toThrow("the connection closed meanwhile");
    expect(names(registry.listGroup(group.name))).toEqual(before);
  });

  it("unregisters without forgetting (the next discovery reuses the tools), and clears for good", async () => {
    const { group, registry, discover } = world();
    await discover();
    const search = group.currentTool("search");
    group.unregister();
    expect(registry.listGroup(group.name)).toEqual([]);
    expect(group.currentTool("search")).toBe(search);
    await discover();
    expect(group.currentTool("search")).toBe(search);
    group.clear();
    expect(registry.listGroup(group.name)).toEqual([]);
    expect(group.currentTool("search")).toBeUndefined();
  });
});
