import { defineTool } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { convertInputSchema } from "../src/schema/index.js";
import { mismatches, NO_MISMATCHES, runDifferential } from "./fixtures/differential.js";
import { defineKey, generateInputs, hasInheritedNameKey } from "./fixtures/json-generator.js";
import { compileReference } from "./fixtures/reference-validator.js";
import { runStrictDifferential } from "./fixtures/strict-differential.js";

/** Wraps a subschema as the one required property `v` of an object root, as tool inputs are. */
function field(schema: object, required = true): object {
  return { type: "object", properties: { v: schema }, ...(required ? { required: ["v"] } : {}) };
}

const INPUTS_PER_SCHEMA = 400;

const DRAFT_04 = "http://json-schema.org/draft-04/schema#";

/**
 * Ajv's uniqueItems compares with fast-deep-equal, which calls an own "toString" or "valueOf" key as a
 * method (and throws) and compares an own "constructor" by identity; the local check compares JSON
 * values, as the specification says. Such inputs are exempt for those cases, and tested on their own.
 */
/**
 * The keywords whose strict variant is checked here too. (The older ones are checked on the reference
 * servers; a oneOf is told as anyOf in strict mode, so a call matching two branches is not covered.)
 */
const NEW_KEYWORDS = [
  "pattern",
  "multipleOf",
  "uniqueItems",
  "prefixItems",
  "contains",
  "propertyNames",
  "minProperties/maxProperties",
  "dependentRequired",
  "exclusiveMinimum/exclusiveMaximum (draft-04)",
  "allOf",
  "if/then/else",
];

const EXEMPT: Record<string, (input: unknown) => boolean> = { uniqueItems: hasInheritedNameKey };

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
  pattern: [
    field({ type: "string", pattern: "^[a-z]+$" }),
    field({ type: "string", pattern: "a" }),
    field({ type: "string", pattern: "^.$" }),
    field({ type: "string", pattern: "\\s" }),
    field({ type: ["string", "null"], pattern: "^\\d{1,3}$", maxLength: 2 }),
    field({ type: "string", pattern: "^[^a]*$", minLength: 1 }),
    field({ type: "string", pattern: "^(?:x|\\u{1F600})+$|^_\\w*" }),
  ],
  multipleOf: [
    field({ type: "number", multipleOf: 0.1 }),
    field({ type: "integer", multipleOf: 3 }),
    field({ type: "number", multipleOf: 2.5, minimum: 0 }),
    field({ type: "number", multipleOf: 1e-9 }),
    field({ type: "number", multipleOf: 1 }),
    field({ type: ["number", "string"], multipleOf: 0.5 }),
  ],
  uniqueItems: [
    field({ type: "array", uniqueItems: true }),
    field({ type: "array", items: { type: "integer" }, uniqueItems: true }),
    field({
      type: "array",
      items: { type: "object", properties: { a: { type: "number" } } },
      uniqueItems: true,
    }),
    field({ type: "array", items: { type: ["string", "number"] }, uniqueItems: true, maxItems: 3 }),
    field({ type: "array", uniqueItems: false, minItems: 1 }),
  ],
  prefixItems: [
    field({ type: "array", prefixItems: [{ type: "string" }, { type: "integer" }] }),
    field({ type: "array", prefixItems: [{ type: "string" }], items: false }),
    field({
      type: "array",
      prefixItems: [{ type: "string" }, { type: "boolean" }],
      items: { type: "number" },
      minItems: 1,
    }),
    field({ type: "array", prefixItems: [{ type: "null" }], minItems: 2, maxItems: 3 }),
  ],
  contains: [
    field({ type: "array", contains: { type: "string" } }),
    field({ type: "array", items: { type: "integer", minimum: -10, maximum: 10 }, contains: { const: 3 } }),
    field({ type: "array", contains: { type: "number", minimum: 2 }, minContains: 2, maxContains: 3 }),
    field({ type: "array", contains: { type: "null" }, minContains: 0, maxContains: 1 }),
    field({
      type: "array",
      contains: { type: "object", properties: { toString: { type: "string" } }, required: ["toString"] },
    }),
  ],
  propertyNames: [
    { type: "object", propertyNames: { maxLength: 3 } },
    { type: "object", propertyNames: { pattern: "^[a-z]+$" }, additionalProperties: { type: "number" } },
    { type: "object", propertyNames: { enum: ["a", "b", "extra"] } },
    {
      type: "object",
      properties: { a: { type: "string" } },
      propertyNames: { type: "string", minLength: 1 },
    },
    field({ type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "string" } }),
  ],
  "minProperties/maxProperties": [
    { type: "object", minProperties: 1 },
    { type: "object", properties: { a: { type: "string" }, b: { type: "number" } }, maxProperties: 1 },
    field({ type: "object", minProperties: 1, maxProperties: 2 }),
  ],
  dependentRequired: [
    {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" }, c: {} },
      dependentRequired: { a: ["b"], c: ["a", "b"] },
    },
    {
      type: "object",
      properties: { constructor: { type: "string" } },
      dependentRequired: { constructor: ["toString"] },
    },
    { type: "object", dependentRequired: { extra: ["constructor"], a: [] } },
  ],
  "exclusiveMinimum/exclusiveMaximum (draft-04)": [
    { $schema: DRAFT_04, ...field({ type: "number", minimum: 0, exclusiveMinimum: true }) },
    {
      $schema: DRAFT_04,
      ...field({ type: "integer", minimum: 1, maximum: 5, exclusiveMaximum: true, exclusiveMinimum: false }),
    },
    { $schema: DRAFT_04, ...field({ type: "number", minimum: 0.5, maximum: 1.5, exclusiveMaximum: true }) },
  ],
  allOf: [
    field({ allOf: [{ type: "string" }, { type: "string", minLength: 2 }] }),
    field({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      allOf: [{ type: "object", properties: { b: { type: "number", minimum: 0 } }, required: ["b"] }],
    }),
    field({
      allOf: [
        { type: "object", properties: { a: { type: "string" } }, additionalProperties: false },
        { type: "object", properties: { b: { type: "string" } } },
      ],
    }),
    field({ type: ["integer", "null"], allOf: [{ type: ["integer", "null"], maximum: 5 }] }),
    field({ allOf: [{ anyOf: [{ type: "string" }, { type: "number" }] }, { type: "number", minimum: 0 }] }),
  ],
  // Parsed, because an object literal with a `then` key looks like a promise.
  "if/then/else": [
    field(
      JSON.parse(
        '{ "type": "string", "if": { "type": "string", "minLength": 3 }, "then": { "type": "string", "maxLength": 5 }, "else": { "type": "string", "pattern": "^a" } }',
      ),
    ),
    field(
      JSON.parse(
        '{ "type": "number", "if": { "type": "number", "minimum": 0 }, "then": { "type": "number", "multipleOf": 2 } }',
      ),
    ),
    field(
      JSON.parse(
        '{ "type": "string", "if": { "type": "string", "minLength": 2 }, "else": { "const": "x" } }',
      ),
    ),
    JSON.parse(
      '{ "type": "object", "properties": { "m": { "type": "string", "enum": ["p", "e"] }, "p": { "type": "string" }, "e": { "type": "string" } }, "if": { "properties": { "m": { "const": "p" } }, "required": ["m"] }, "then": { "required": ["p"] }, "else": { "required": ["e"] }, "additionalProperties": false }',
    ),
  ],
  "typeless branches of an object": [
    {
      type: "object",
      properties: { p: { type: "string" }, e: { type: "string" } },
      allOf: [{ anyOf: [{ required: ["p"] }, { required: ["e"] }] }],
      additionalProperties: false,
    },
    {
      type: "object",
      properties: { a: { type: "integer", minimum: 0, maximum: 9 }, b: { type: "string" } },
      allOf: [
        { oneOf: [{ required: ["a"] }, { required: ["b"] }] },
        { properties: { b: { minLength: 2, type: "string" } } },
      ],
    },
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
        { exempt: EXEMPT[keyword] ?? (() => false) },
      );
      expect(mismatches(report)).toEqual(NO_MISMATCHES);
      if (NEW_KEYWORDS.includes(keyword)) {
        // The strict variant, where there is one, never tells the model more than is enforced either.
        const strict = runStrictDifferential(schema, conversion.schema, conversion.parameters, 200, seed);
        expect(strict.problems).toEqual([]);
      }
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

  it("rejects an own __proto__ key at any depth, so it never reaches the server", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" }, nested: { type: "object" } },
      additionalProperties: { type: "number" },
    };
    const conversion = convertInputSchema(schema);
    if (!conversion.ok) throw new Error(conversion.reason);
    const top: Record<string, unknown> = { a: "x" };
    defineKey(top, "__proto__", 1);
    const inner: Record<string, unknown> = {};
    defineKey(inner, "__proto__", {});
    expect(compileReference(schema)(top)).toBe(true);
    for (const [input, path] of [
      [top, ["__proto__"]],
      [{ a: "x", nested: inner }, ["nested", "__proto__"]],
    ] as const) {
      const parsed = conversion.schema.safeParse(input);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues).toMatchObject([
        { path, message: 'an own "__proto__" key is not accepted' },
      ]);
    }
  });

  it("rejects an own __proto__ key where additional properties are not allowed", () => {
    const conversion = convertInputSchema({ type: "object", properties: {}, additionalProperties: false });
    if (!conversion.ok) throw new Error(conversion.reason);
    const input: Record<string, unknown> = {};
    defineKey(input, "__proto__", {});
    expect(conversion.schema.safeParse(input).success).toBe(false);
  });
});
