import {
  createMemoryEventSink,
  defineTool,
  executeToolCall,
  type RegisteredTool,
  ToolRegistry,
} from "@agent/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { fixedGate } from "./helpers.js";

const schema = z.object({ q: z.string().min(1), limit: z.number().int().optional() });
const base = { name: "search", description: "Searches", effect: "read" as const, execute: () => "done" };

function failingDefinition(execute = vi.fn()) {
  return {
    ...base,
    execute,
    schema: (): typeof schema => {
      throw new Error("zod changed");
    },
  };
}

function failingTool(execute = vi.fn()): RegisteredTool {
  return defineTool(failingDefinition(execute));
}

describe("a tool whose schema is a factory", () => {
  it("builds the schema on first use, once, and matches the same tool defined eagerly", () => {
    const factory = vi.fn(() => schema);
    const lazy = defineTool({ ...base, schema: factory });
    expect(factory).not.toHaveBeenCalled();
    const eager = defineTool({ ...base, schema });
    expect(lazy.fingerprint).toBe(eager.fingerprint);
    expect(lazy.parameters).toEqual(eager.parameters);
    expect(lazy.strictParameters).toEqual(eager.strictParameters);
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager));
    const { prepare } = lazy;
    expect(prepare({ q: "" }).ok).toBe(false);
    expect(lazy.prepare({ q: "x", limit: null })).toMatchObject({ ok: true, input: { q: "x" } });
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it("fails closed when the factory throws: every input is rejected, nothing runs", async () => {
    const execute = vi.fn();
    const tool = failingTool(execute);
    const registry = new ToolRegistry();
    registry.register(tool);
    const outcome = await executeToolCall(
      { name: "search", input: { q: "x" } },
      { registry, gate: fixedGate("allow"), runId: "run_1", cwd: "/work", events: createMemoryEventSink() },
    );
    expect(outcome).toMatchObject({
      ok: false,
      error: "invalid_arguments",
      issues: [{ path: [], message: expect.stringContaining("zod changed") }],
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it("throws invalid_tool_definition from the properties derived from the schema", () => {
    const tool = failingTool();
    const invalid = expect.objectContaining({ code: "invalid_tool_definition" });
    expect(() => tool.parameters).toThrowError(invalid);
    expect(() => tool.strictParameters).toThrowError(invalid);
    expect(() => tool.fingerprint).toThrowError(invalid);
    expect(tool.name).toBe("search");
  });

  it("leaves a group as it was when a fingerprint cannot be read", () => {
    const registry = new ToolRegistry();
    const original = defineTool({ ...base, group: "g", schema });
    registry.replaceGroup("g", [original]);
    const broken = defineTool({ ...failingDefinition(), group: "g" });
    expect(() => registry.replaceGroup("g", [broken])).toThrowError(
      expect.objectContaining({ code: "invalid_tool_definition" }),
    );
    expect(registry.get("search")).toBe(original);
  });

  it("reports the same object as unchanged without building its schema", () => {
    const registry = new ToolRegistry();
    const factory = vi.fn(() => schema);
    const kept = defineTool({ ...base, group: "g", schema: factory });
    registry.replaceGroup("g", [kept]);
    expect(registry.replaceGroup("g", [kept])).toEqual({ added: [], removed: [], changed: [] });
    expect(factory).not.toHaveBeenCalled();
  });
});

describe("a tool whose parameters are given", () => {
  const shown = {
    type: "object",
    $defs: { q: { type: "string", minLength: 1 } },
    properties: { q: { $ref: "#/$defs/q" } },
    required: ["q"],
  };

  it("shows them on first use, in place of the generated ones, and fingerprints them", () => {
    const given = vi.fn(() => shown);
    const tool = defineTool({ ...base, schema: () => schema, parameters: given });
    expect(given).not.toHaveBeenCalled();
    expect(tool.parameters).toEqual(shown);
    expect(tool.fingerprint).not.toBe(defineTool({ ...base, schema }).fingerprint);
    expect(given).toHaveBeenCalledTimes(1);
  });

  it("still validates with the schema", () => {
    const tool = defineTool({ ...base, schema, parameters: () => shown });
    expect(tool.prepare({ q: "" }).ok).toBe(false);
    expect(tool.prepare({ q: "x" }).ok).toBe(true);
  });

  it("refuses parameters that do not describe an object", () => {
    expect(() => defineTool({ ...base, schema, parameters: () => ({ type: "string" }) })).toThrowError(
      expect.objectContaining({ code: "invalid_tool_definition" }),
    );
  });
});
