import { defineTool, type JsonObject, removeStrictNulls, toStrictParameters } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";

function strict(parameters: JsonObject): JsonObject {
  const variant = toStrictParameters(parameters);
  if (!variant.compatible) throw new Error(variant.reason);
  return variant.parameters;
}

function reason(parameters: JsonObject): string {
  const variant = toStrictParameters(parameters);
  if (variant.compatible) throw new Error("expected an incompatible schema");
  return variant.reason;
}

describe("toStrictParameters", () => {
  it("requires every property, closes every object and makes optional properties nullable", () => {
    const parameters: JsonObject = {
      type: "object",
      properties: {
        name: { type: "string" },
        count: { type: "integer", description: "How many" },
        mode: { type: "string", enum: ["a", "b"] },
        kind: { type: "string", const: "fixed" },
        either: { anyOf: [{ type: "string" }, { type: "number" }] },
        list: { type: "array", items: { type: "object", properties: { x: { type: "number" } } } },
        never: false,
      },
      required: ["name"],
    };
    const before = structuredClone(parameters);
    expect(strict(parameters)).toEqual({
      type: "object",
      properties: {
        name: { type: "string" },
        count: { type: ["integer", "null"], description: "How many" },
        mode: { type: ["string", "null"], enum: ["a", "b", null] },
        kind: { type: ["string", "null"], enum: ["fixed", null] },
        either: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
        list: {
          type: ["array", "null"],
          items: {
            type: "object",
            properties: { x: { type: ["number", "null"] } },
            required: ["x"],
            additionalProperties: false,
          },
        },
        never: { type: "null" },
      },
      required: ["name", "count", "mode", "kind", "either", "list", "never"],
      additionalProperties: false,
    });
    expect(parameters).toEqual(before);
  });

  it("leaves optional properties that already accept null as they are", () => {
    const parameters: JsonObject = {
      type: "object",
      properties: {
        a: { type: ["string", "null"] },
        b: { anyOf: [{ type: "string" }, { type: "null" }] },
        c: {},
      },
    };
    expect(strict(parameters).properties).toEqual(parameters.properties);
  });

  it("closes the open objects zod emits, including a root that takes no arguments", () => {
    expect(strict({ type: "object", properties: {}, additionalProperties: {} })).toEqual({
      type: "object",
      properties: {},
      required: [],
      additionalProperties: false,
    });
    const nested = strict({
      type: "object",
      properties: {
        o: {
          type: "object",
          properties: { a: { type: "string" } },
          required: ["a"],
          additionalProperties: true,
        },
      },
      required: ["o"],
    });
    expect(nested.properties).toEqual({
      o: {
        type: "object",
        properties: { a: { type: "string" } },
        required: ["a"],
        additionalProperties: false,
      },
    });
  });

  it("tells the model anyOf where the schema says oneOf; the validator keeps enforcing oneOf", () => {
    const parameters: JsonObject = {
      type: "object",
      properties: { v: { oneOf: [{ type: "string" }, { type: "integer" }] } },
      required: ["v"],
    };
    expect(strict(parameters).properties).toEqual({
      v: { anyOf: [{ type: "string" }, { type: "integer" }] },
    });
  });

  it.each([
    [
      "a typed map",
      { type: "object", properties: {}, additionalProperties: { type: "number" } },
      "# allows additional properties of a given schema, which strict mode cannot express",
    ],
    [
      "a free-form nested object",
      { type: "object", properties: { meta: { type: "object", properties: {}, additionalProperties: {} } } },
      "#/properties/meta is a free-form object, which strict mode cannot express",
    ],
    [
      "a reference",
      { type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { type: "string" } } },
      '# uses "$defs", which the strict variant cannot rewrite',
    ],
    [
      "allOf",
      { type: "object", properties: { a: { allOf: [{ type: "string" }] } } },
      '#/properties/a uses "allOf", which the strict variant cannot rewrite',
    ],
    [
      "a tuple",
      { type: "object", properties: { t: { type: "array", prefixItems: [{ type: "string" }] } } },
      '#/properties/t uses "prefixItems", which the strict variant cannot rewrite',
    ],
    [
      "anyOf next to oneOf",
      { type: "object", properties: { a: { anyOf: [{ type: "string" }], oneOf: [{ type: "string" }] } } },
      "#/properties/a has both anyOf and oneOf, which strict mode cannot express",
    ],
    [
      "a union of object shapes with optional properties",
      {
        type: "object",
        properties: {
          shape: {
            anyOf: [
              { type: "object", properties: { r: { type: "number" } } },
              { type: "object", properties: { w: { type: "number" } } },
            ],
          },
        },
        required: ["shape"],
      },
      "#/properties/shape is a union of several shapes with optional properties, whose nulls could not be mapped back to absent",
    ],
  ] as [string, JsonObject, string][])("reports %s as incompatible", (_case, parameters, expected) => {
    expect(reason(parameters)).toBe(expected);
  });
});

describe("removeStrictNulls", () => {
  const parameters: JsonObject = {
    type: "object",
    properties: {
      path: { type: "string" },
      limit: { type: "integer" },
      note: { type: ["string", "null"] },
      items: {
        type: "array",
        items: {
          type: "object",
          properties: { id: { type: "string" }, tag: { type: "string" } },
          required: ["id"],
        },
      },
      maybe: {
        anyOf: [
          { type: "array", items: { type: "object", properties: { x: { type: "number" } } } },
          { type: "null" },
        ],
      },
    },
    required: ["path"],
  };

  it("hands an input without any null over as it is, and copies one that needs it", () => {
    const plain = { path: "a", items: [{ id: "1", tag: "t" }] };
    expect(removeStrictNulls(parameters, plain)).toBe(plain);
    const withNull = { path: "a", limit: null };
    expect(removeStrictNulls(parameters, withNull)).not.toBe(withNull);
    // An own __proto__ member stays an own member of the copy, never the copy's prototype.
    const hostile = JSON.parse('{"path":"a","__proto__":{"limit":1}}') as Record<string, unknown>;
    const copied = removeStrictNulls(parameters, hostile) as Record<string, unknown>;
    expect(copied).not.toBe(hostile);
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    // A class instance is not JSON data: the copy keeps its own enumerable members only.
    class Input {
      path = "a";
    }
    const instance = new Input();
    expect(removeStrictNulls(parameters, instance)).toEqual({ path: "a" });
    expect(removeStrictNulls(parameters, instance)).not.toBe(instance);
  });

  it("turns null into absent for an optional property that does not accept null", () => {
    expect(removeStrictNulls(parameters, { path: "a", limit: null })).toEqual({ path: "a" });
  });

  it("keeps null where it is a real value or an error for the validator to report", () => {
    expect(removeStrictNulls(parameters, { path: null, note: null })).toEqual({ path: null, note: null });
  });

  it("reaches into arrays and into the single array branch of a union", () => {
    expect(
      removeStrictNulls(parameters, { path: "a", items: [{ id: "1", tag: null }], maybe: [{ x: null }] }),
    ).toEqual({ path: "a", items: [{ id: "1" }], maybe: [{}] });
  });

  it("does not mutate its input", () => {
    const input = { path: "a", limit: null, items: [{ id: "1", tag: null }] };
    const before = structuredClone(input);
    removeStrictNulls(parameters, input);
    expect(input).toEqual(before);
  });

  it("keeps nulls under undeclared keys, even ones named like Object.prototype members", () => {
    const closed: JsonObject = { ...parameters, additionalProperties: false };
    expect(removeStrictNulls(closed, { path: "a", constructor: null, toString: null })).toEqual({
      path: "a",
      constructor: null,
      toString: null,
    });
  });

  it("keeps a __proto__ key as data instead of turning it into the prototype", () => {
    const input = JSON.parse('{"__proto__": {"path": "/etc/passwd"}}') as unknown;
    const result = removeStrictNulls(parameters, input) as object;
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.hasOwn(result, "__proto__")).toBe(true);
    expect((result as { path?: unknown }).path).toBeUndefined();
  });
});

describe("through defineTool", () => {
  const tool = defineTool({
    name: "search",
    description: "",
    schema: z.object({
      path: z.string(),
      limit: z.number().int().optional(),
      note: z.string().nullable().optional(),
    }),
    effect: "read",
    execute: () => null,
  });

  it("offers a strict variant and maps its nulls back before validating", () => {
    expect(tool.strictParameters.compatible).toBe(true);
    expect(tool.prepare({ path: "a", limit: null, note: null })).toMatchObject({
      ok: true,
      input: { path: "a", note: null },
    });
  });

  it("does not loosen the validator: required fields and types still hold", () => {
    expect(tool.prepare({ path: null, limit: null, note: null }).ok).toBe(false);
    expect(tool.prepare({ path: "a", limit: "1", note: null }).ok).toBe(false);
  });

  it("does not let a __proto__ key supply a required property", () => {
    expect(tool.prepare(JSON.parse('{"__proto__": {"path": "/etc/passwd"}}')).ok).toBe(false);
  });
});
