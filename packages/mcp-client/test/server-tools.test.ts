import { defineTool, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { McpToolDescriptor, ToolListing } from "../src/discovery.js";
import { buildServerTools, replaceServerGroup } from "../src/server-tools.js";
import type { RemoteToolPort } from "../src/tool-mapping.js";

// Mapping never calls the server: a call through this port would be a bug of the test.
const port: RemoteToolPort = {
  callTool: () => Promise.reject(new Error("no tool is called while mapping")),
};

function descriptor(remoteName: string, overrides: Partial<McpToolDescriptor> = {}): McpToolDescriptor {
  return {
    server: "docs",
    remoteName,
    description: `The ${remoteName} tool`,
    inputSchema: { type: "object", properties: { q: { type: "string" } } },
    outputSchema: undefined,
    annotations: undefined,
    title: undefined,
    ...overrides,
  };
}

function listing(tools: McpToolDescriptor[], rejected: ToolListing["rejected"] = []): ToolListing {
  return { tools, rejected, pages: 1, cache: { ttlMs: 0, scope: "private" } };
}

const everything = { include: () => true, server: port };

describe("buildServerTools", () => {
  it("maps each included tool, lists the excluded by remote name, and keeps the listing's rejections", () => {
    const set = buildServerTools(
      listing([descriptor("search"), descriptor("delete")], [{ remoteName: "odd", reason: "invalid_tool" }]),
      { include: (name) => name !== "delete", server: port },
    );
    expect(set.tools.map((tool) => [tool.name, tool.effect])).toEqual([["mcp__docs__search", "external"]]);
    expect(set.excluded).toEqual(["delete"]);
    expect(set.rejected).toEqual([{ remoteName: "odd", reason: "invalid_tool" }]);
    expect([...set.mapped.keys()]).toEqual(["search"]);
  });

  it("rejects, with its reason, a tool whose schema the client cannot enforce, and maps the rest", () => {
    const unsupported = descriptor("fancy", {
      inputSchema: { type: "object", dependentSchemas: { q: {} } },
    });
    const set = buildServerTools(listing([unsupported, descriptor("search")]), everything);
    expect(set.tools.map((tool) => tool.name)).toEqual(["mcp__docs__search"]);
    expect(set.rejected).toEqual([
      { remoteName: "fancy", reason: expect.stringMatching(/^unsupported_input_schema/) },
    ]);
  });

  it("reuses the very tool of an unchanged definition, and converts a changed one to a new fingerprint", () => {
    const first = buildServerTools(listing([descriptor("search"), descriptor("read")]), everything);
    const changed = descriptor("read", { description: "Reads, now differently" });
    const second = buildServerTools(listing([descriptor("search"), changed]), {
      ...everything,
      previous: first.mapped,
    });
    expect(second.tools[0]).toBe(first.tools[0]);
    expect(second.tools[1]).not.toBe(first.tools[1]);
    expect(second.tools[1]?.fingerprint).not.toBe(first.tools[1]?.fingerprint);
  });

  it("compares with its own copy: a server changing the objects it listed does not fake an unchanged tool", () => {
    const listed = descriptor("search");
    const first = buildServerTools(listing([listed]), everything);
    listed.inputSchema = { type: "object", properties: { q: { type: "number" } } };
    const second = buildServerTools(listing([listed]), { ...everything, previous: first.mapped });
    expect(second.tools[0]).not.toBe(first.tools[0]);
  });

  it("binds the server's identity into every fingerprint", () => {
    const here = buildServerTools(listing([descriptor("search")]), {
      ...everything,
      serverIdentity: "cmd-a",
    });
    const there = buildServerTools(listing([descriptor("search")]), {
      ...everything,
      serverIdentity: "cmd-b",
    });
    expect(here.tools[0]?.fingerprint).not.toBe(there.tools[0]?.fingerprint);
  });
});

describe("replaceServerGroup", () => {
  it("swaps the server's tools as one group, saying what was added and removed", () => {
    const registry = new ToolRegistry();
    const [search, read] = buildServerTools(
      listing([descriptor("search"), descriptor("read")]),
      everything,
    ).tools;
    if (!search || !read) throw new Error("two tools");
    replaceServerGroup(registry, "docs", [search]);
    const change = replaceServerGroup(registry, "docs", [read]);
    expect(change).toMatchObject({ added: ["mcp__docs__read"], removed: ["mcp__docs__search"] });
    expect(registry.get("mcp__docs__search")).toBeUndefined();
    expect(registry.get("mcp__docs__read")).toBe(read);
  });

  it("refuses a name taken outside the group with tool_name_clash, leaving the registry as it was", () => {
    const registry = new ToolRegistry();
    const local = defineTool({
      name: "mcp__docs__search",
      description: "A local impostor",
      schema: z.object({}),
      effect: "read",
      execute: () => "",
    });
    registry.register(local);
    const [remote] = buildServerTools(listing([descriptor("search")]), everything).tools;
    expect(() => replaceServerGroup(registry, "docs", remote ? [remote] : [])).toThrow(
      expect.objectContaining({ code: "tool_name_clash", server: "docs" }),
    );
    expect(registry.get("mcp__docs__search")).toBe(local);
  });
});
