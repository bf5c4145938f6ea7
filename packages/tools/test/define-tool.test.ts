import { defineTool } from "@agent/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";

const schema = z.object({
  path: z.string().min(1).describe("A file path"),
  limit: z.number().int().optional(),
});

describe("defineTool", () => {
  it("derives the model-visible parameters from the validating schema, without $schema", () => {
    const tool = defineTool({
      name: "read_file",
      description: "Reads",
      schema,
      effect: "read",
      execute: () => "",
    });
    expect(tool.parameters).toMatchObject({
      type: "object",
      properties: {
        path: { type: "string", minLength: 1, description: "A file path" },
        limit: { type: "integer" },
      },
      required: ["path"],
    });
    expect(tool.parameters).not.toHaveProperty("$schema");
  });

  it("validates before any side effect and reports each issue with its path", () => {
    const execute = vi.fn();
    const tool = defineTool({ name: "t", description: "", schema, effect: "write", execute });
    const prepared = tool.prepare({ path: "", limit: 1.5, extra: true });
    expect(prepared.ok).toBe(false);
    if (prepared.ok) return;
    expect(prepared.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining([["path"], ["limit"]]));
    expect(execute).not.toHaveBeenCalled();
  });

  it("executes exactly the validated input", async () => {
    const execute = vi.fn((input: unknown) => input);
    const tool = defineTool({
      name: "t",
      description: "",
      schema: z.object({ n: z.coerce.number() }),
      effect: "read",
      execute,
    });
    const prepared = tool.prepare({ n: "4" });
    if (!prepared.ok) throw new Error("expected valid input");
    await prepared.execute({} as never);
    expect(execute).toHaveBeenCalledWith({ n: 4 }, {});
  });

  it("maps a strict-mode null for an optional field back to absent, and only there", () => {
    const tool = defineTool({ name: "t", description: "", schema, effect: "read", execute: () => "" });
    const prepared = tool.prepare({ path: "a", limit: null });
    expect(prepared.ok && prepared.input).toEqual({ path: "a" });
    expect(tool.prepare({ path: null }).ok).toBe(false);
  });

  it("changes the fingerprint with any part of the definition", () => {
    const base = { name: "t", description: "d", schema, effect: "read" as const, execute: () => "" };
    const fingerprint = defineTool(base).fingerprint;
    expect(defineTool(base).fingerprint).toBe(fingerprint);
    expect(defineTool({ ...base, description: "e" }).fingerprint).not.toBe(fingerprint);
    expect(defineTool({ ...base, effect: "write" }).fingerprint).not.toBe(fingerprint);
    expect(defineTool({ ...base, schema: schema.extend({ x: z.string() }) }).fingerprint).not.toBe(
      fingerprint,
    );
    expect(defineTool({ ...base, annotations: { readOnlyHint: true } }).fingerprint).not.toBe(fingerprint);
    expect(defineTool({ ...base, identity: { version: 2 } }).fingerprint).not.toBe(fingerprint);
  });

  it("rejects bad definitions with a clear error", () => {
    const base = { description: "", schema, effect: "read" as const, execute: () => "" };
    expect(() => defineTool({ ...base, name: "bad name" })).toThrowError(
      expect.objectContaining({ code: "invalid_tool_definition" }),
    );
    expect(() => defineTool({ ...base, name: "x".repeat(65) })).toThrow(/1-64 characters/);
    expect(() => defineTool({ ...base, name: "t", effect: "admin" as never })).toThrow(/effect must be/);
    expect(() => defineTool({ ...base, name: "t", schema: z.string() as never })).toThrow(
      /must describe an object/,
    );
  });
});
