import { describe, expect, it } from "vitest";
import { defineTool, ToolRegistry } from "@agent/tools";
import { z } from "zod";

describe("smoke", () => {
  it("resolves the workspace package to source", () => {
    const registry = new ToolRegistry();
    registry.register(defineTool({ name: "a", description: "", schema: z.object({}), effect: "read", execute: () => 1 }));
    expect(registry.names()).toEqual(["a"]);
  });
});
