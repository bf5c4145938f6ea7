import { defineTool, type RegisteredTool, ToolRegistry, ToolsError } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";

function tool(name: string, group?: string, description = "d"): RegisteredTool {
  return defineTool({
    name,
    description,
    schema: z.object({}),
    effect: "read",
    execute: () => name,
    ...(group ? { group } : {}),
  });
}

describe("ToolRegistry", () => {
  it("throws on a duplicate name and leaves the registry unchanged", () => {
    const registry = new ToolRegistry();
    const original = tool("read_file");
    registry.register(original);
    expect(() => registry.register(tool("read_file", undefined, "impostor"))).toThrowError(
      expect.objectContaining({ code: "duplicate_tool" }),
    );
    expect(registry.names()).toEqual(["read_file"]);
    expect(registry.get("read_file")).toBe(original);
  });

  it("registers a batch all or nothing", () => {
    const registry = new ToolRegistry();
    registry.register(tool("a"));
    expect(() => registry.registerAll([tool("b"), tool("a")])).toThrow(ToolsError);
    expect(() => registry.registerAll([tool("c"), tool("c")])).toThrow(/appears twice/);
    expect(registry.names()).toEqual(["a"]);
  });

  it("replaces one group atomically and reports what changed", () => {
    const registry = new ToolRegistry();
    registry.register(tool("local"));
    registry.replaceGroup("mcp:docs", [tool("mcp__docs__a", "mcp:docs"), tool("mcp__docs__b", "mcp:docs")]);
    const change = registry.replaceGroup("mcp:docs", [
      tool("mcp__docs__b", "mcp:docs", "new description"),
      tool("mcp__docs__c", "mcp:docs"),
    ]);
    expect(change).toEqual({ added: ["mcp__docs__c"], removed: ["mcp__docs__a"], changed: ["mcp__docs__b"] });
    expect(registry.names().sort()).toEqual(["local", "mcp__docs__b", "mcp__docs__c"]);
  });

  it("never lets a group replace a tool outside it, and changes nothing when it tries", () => {
    const registry = new ToolRegistry();
    const local = tool("read_file");
    registry.register(local);
    registry.replaceGroup("mcp:docs", [tool("mcp__docs__a", "mcp:docs")]);
    expect(() => registry.replaceGroup("mcp:docs", [tool("read_file", "mcp:docs")])).toThrowError(
      expect.objectContaining({ code: "duplicate_tool" }),
    );
    expect(() => registry.replaceGroup("mcp:docs", [tool("mcp__docs__x", "mcp:other")])).toThrowError(
      expect.objectContaining({ code: "group_violation" }),
    );
    expect(registry.get("read_file")).toBe(local);
    expect(registry.names()).toEqual(["read_file", "mcp__docs__a"]);
  });

  it("removes a group", () => {
    const registry = new ToolRegistry();
    registry.replaceGroup("g", [tool("x", "g")]);
    expect(registry.removeGroup("g")).toEqual(["x"]);
    expect(registry.list()).toEqual([]);
  });
});
