import { defineTool } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { convertInputSchema } from "../src/schema/index.js";
import { mismatches, NO_MISMATCHES, runDifferential } from "./fixtures/differential.js";
import { defineKey, generateInputs } from "./fixtures/json-generator.js";
import { compileReference } from "./fixtures/reference-validator.js";

/** Wraps a subschema as the one required property `v` of an object root, as tool inputs are. */
function field(schema: object, required = true): object {
  return { type: "object", properties: { v: schema }, ...(required ? { required: ["v"] } : {}) };
}

const INPUTS_PER_SCHEMA = 400;

function asTool(schema: ZodType) {
  return defineTool({ name: "remote", description: "", schema, effect: "external", execute: () => null });
}

/** For each accepted keyword, schemas that exercise it alone and in the combinations that matter. */
const CASES: Record<string, object[]> = {
  type: [
    field({ type: "string" }),
    field({ type: "number" }),
    field({ type: "integer" }),
    field({ type: "boolean" }),
    field({ type: "null" }),
    field({ type: "array" }),
    field({ type: "object" }),
    field({ type: ["string", "null"] }),
    field({ type: ["integer", "boolean"] }),
    field({ type: ["number", "integer"] }),
    field({}),
  ],
  "properties/required": [
    { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a"] },
    {
      type: "object",
      properties: { "": { type: "string" }, "a/b": { type: "number" }, "~": { type: "null" } },
    },
    {
      type: "object",
      properties: { constructor: { type: "string" }, toString: { type: "number" } },
      required: ["constructor"],
    },
    {
      type: "object",
      properties: { ключ: { type: "boolean" }, extra: { type: "string" } },
      required: ["ключ", "extra"],
    },
    {
      type: "object",
      properties: { a: {}, b: { type: "object", properties: { c: { type: "string" } }, required: ["c"] } },
      required: ["a", "b"],
    },
    { type: "object", properties: {} },
  ],
  additionalProperties: [
    { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
    { type: "object", properties: { a: { type: "string" } }, additionalProperties: true },
    { type: "object", properties: { a: { type: "string" } }, additionalProperties: {} },
    { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "number" } },
    {
      type: "object",
      additionalProperties: {
        type: "object",
        properties: { x: { type: "integer" } },
        additionalProperties: false,
      },
    },
    field({
      type: "object",
      properties: { b: { type: "boolean" } },
      required: ["b"],
      additionalProperties: false,
    }),
  ],
  items: [
    field({ type: "array", items: { type: "string" } }),
    field({
      type: "array",
      items: {
        type: "object",
        properties: { a: { type: "integer" } },
        required: ["a"],
        additionalProperties: false,
      },
    }),
    field({ type: "array", items: { type: "array", items: { type: ["number", "null"] } } }),
    field({ type: ["array", "null"], items: { type: "boolean" } }),
  ],
  "minItems/maxItems": [
    field({ type: "array", items: { type: "string" }, minItems: 1 }),
    field({ type: "array", items: { type: "integer" }, minItems: 2, maxItems: 3 }),
    field({ type: "array", maxItems: 0 }),
    field({ type: "array", minItems: 1 }),
    field({ type: ["array", "string"], minItems: 1, maxItems: 2, minLength: 2 }),
  ],
  enum: [
    field({ type: "string", enum: ["Text", "Blob"] }),
    field({ enum: ["a", 1, null, true] }),
    field({ type: "integer", enum: [0, 1, 2] }),
    field({ type: ["string", "null"], enum: ["x", null] }),
    field({ enum: [1.5, "1.5", false] }),
    field({ enum: ["only"] }),
  ],
  const: [
    field({ const: "resource" }),
    field({ type: "string", const: "resource" }),
    field({ const: 0 }),
    field({ const: null }),
    field({ type: "boolean", const: false }),
  ],
  "minimum/maximum": [
    field({ type: "number", minimum: 1, maximum: 10 }),
    field({ type: "integer", minimum: 0 }),
    field({ type: "integer", minimum: -5, maximum: -1 }),
    field({ type: "number", minimum: 0.1, maximum: 0.30000000000000004 }),
    field({ type: "number", maximum: 1e20 }),
    field({ type: ["number", "null"], minimum: 3 }),
  ],
  "exclusiveMinimum/exclusiveMaximum": [
    field({ type: "number", exclusiveMinimum: 0 }),
    field({ type: "number", exclusiveMinimum: 1, exclusiveMaximum: 5 }),
    field({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 3 }),
    field({ type: "number", minimum: 5, exclusiveMinimum: 0 }),
    field({ type: "number", maximum: 2, exclusiveMaximum: 2 }),
  ],
  "minLength/maxLength": [
    field({ type: "string", minLength: 1 }),
    field({ type: "string", minLength: 2 }),
    field({ type: "string", maxLength: 1 }),
    field({ type: "string", minLength: 2, maxLength: 3 }),
    field({ type: "string", maxLength: 0 }),
    field({ type: ["string", "null"], minLength: 2 }),
  ],
  anyOf: [
    field({ anyOf: [{ type: "string" }, { type: "null" }] }),
    field({
      anyOf: [
        { type: "string", maxLength: 2 },
        { type: "integer", minimum: 0 },
      ],
    }),
    field({
      anyOf: [
        {
          type: "object",
          properties: { kind: { const: "a" }, n: { type: "number" } },
          required: ["kind"],
          additionalProperties: false,
        },
        { type: "object", properties: { kind: { const: "b" } }, required: ["kind"] },
      ],
    }),
    field({ anyOf: [{ type: "string" }, { type: "string", minLength: 3 }] }),
    field({ anyOf: [{ type: "integer" }, { type: "number", maximum: 0 }] }),
  ],
  oneOf: [
    field({ oneOf: [{ type: "string" }, { type: "number" }] }),
    field({ oneOf: [{ type: "string" }, { type: "string", minLength: 2 }] }),
    field({ oneOf: [{ type: "number" }, { type: "integer", minimum: -100, maximum: 100 }] }),
    field({
      oneOf: [
        { type: "integer", enum: [1, 2] },
        { type: "number", minimum: 2 },
      ],
    }),
    field({
      oneOf: [
        { type: "object", properties: { a: { type: "string" } } },
        { type: "object", properties: { b: { type: "number" } }, required: ["b"] },
      ],
    }),
    field({
      oneOf: [
        {
          type: "object",
          properties: { a: { type: "string" } },
          required: ["a"],
          additionalProperties: false,
        },
        { type: "null" },
      ],
    }),
  ],
  annotations: [
    {
      type: "object",
      title: "Input",
      description: "All annotations at once",
      $comment: "ignored by validators",
      examples: [{ a: "x" }],
      deprecated: false,
      properties: {
        a: { type: "string", default: "fallback", format: "uri", readOnly: true, examples: ["https://a"] },
        b: { type: "integer", default: 3, writeOnly: true, deprecated: true, title: "B" },
        c: { type: "string", contentEncoding: "base64", contentMediaType: "image/png", default: 1 },
      },
      required: ["a"],
    },
    {
      $schema: "http://json-schema.org/draft-07/schema#",
      ...field({ type: "string", format: "date-time", default: "now" }),
    },
    {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      ...field({ type: "object", default: {} }, false),
    },
  ],
};

describe("zod agrees with Ajv on every accepted keyword", () => {
  for (const [keyword, schemas] of Object.entries(CASES)) {
    it.each(schemas.map((schema, index) => [index, schema]))(`${keyword} #%i`, (index, schema) => {
      const conversion = convertInputSchema(schema);
      if (!conversion.ok) throw new Error(conversion.reason);
      const seed = 1_000 * Object.keys(CASES).indexOf(keyword) + Number(index);
      const report = runDifferential(
        schema,
        conversion.schema,
        conversion.parameters,
        generateInputs(schema, INPUTS_PER_SCHEMA, seed),
      );
      expect(mismatches(report)).toEqual(NO_MISMATCHES);
      expect(asTool(conversion.schema).parameters).toEqual(conversion.parameters);
      // The generator must reach both sides of the schema, or agreement proves little.
      expect(report.accepted).toBeGreaterThan(INPUTS_PER_SCHEMA / 20);
      expect(report.rejected).toBeGreaterThan(INPUTS_PER_SCHEMA / 20);
    });
  }
});

describe("the documented differences", () => {
  it("rejects integers beyond ±(2^53 - 1), and tells the model so in the parameters", () => {
    const schema = field({ type: "integer" });
    const conversion = convertInputSchema(schema);
    if (!conversion.ok) throw new Error(conversion.reason);
    const input = { v: 2 ** 53 };
    expect(conversion.schema.safeParse(input).success).toBe(false);
    expect(compileReference(conversion.parameters)(input)).toBe(false);
    expect(compileReference(schema)(input)).toBe(true);
    expect(conversion.parameters.properties).toEqual({
      v: { type: "integer", minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    });
  });

  it("drops an own __proto__ key without validating it, so it never reaches the server", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" } },
      additionalProperties: { type: "number" },
    };
    const conversion = convertInputSchema(schema);
    if (!conversion.ok) throw new Error(conversion.reason);
    const input: Record<string, unknown> = { a: "x" };
    defineKey(input, "__proto__", "not a number");
    const parsed = conversion.schema.safeParse(input);
    expect(compileReference(schema)(input)).toBe(false);
    expect(parsed.success).toBe(true);
    expect(Object.hasOwn(parsed.data as object, "__proto__")).toBe(false);
    expect(parsed.data).toEqual({ a: "x" });
  });

  it("rejects an own __proto__ key where additional properties are not allowed", () => {
    const conversion = convertInputSchema({ type: "object", properties: {}, additionalProperties: false });
    if (!conversion.ok) throw new Error(conversion.reason);
    const input: Record<string, unknown> = {};
    defineKey(input, "__proto__", {});
    expect(conversion.schema.safeParse(input).success).toBe(false);
  });
});
