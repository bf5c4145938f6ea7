import { describe, expect, it } from "vitest";
import {
  convertInputSchema,
  convertOutputSchema,
  UNSUPPORTED_INPUT_SCHEMA,
  UNSUPPORTED_OUTPUT_SCHEMA,
} from "../src/schema/index.js";

/** An object root whose one property `q` has the given schema. */
function at(q: unknown, extra: object = {}): object {
  return { type: "object", properties: { q }, ...extra };
}

const NOT_LOCAL = 'is not supported; only references within the schema ("#/…") are';

/** [case, schema, the exact reason the tool is rejected with]. */
const REJECTED: [string, unknown, string][] = [
  ["a boolean root", true, '#: inputSchema must be a JSON object with "type": "object", got boolean true'],
  ["a missing schema", undefined, '#: inputSchema must be a JSON object with "type": "object", got nothing'],
  ["an array root", [], '#: inputSchema must be a JSON object with "type": "object", got an array'],
  [
    "a string root",
    { type: "string" },
    '#: inputSchema must have "type": "object" at its root, got "string"',
  ],
  [
    "a nullable root",
    { type: ["object", "null"] },
    '#: inputSchema must have "type": "object" at its root, got ["object","null"]',
  ],
  [
    "a root with properties but no type",
    { properties: {} },
    '#: inputSchema must have "type": "object" at its root, got no type; #: keyword "properties" needs "type" to include "object"',
  ],
  [
    "patternProperties",
    at({ type: "object", patternProperties: { "^a": {} } }),
    '#/properties/q: keyword "patternProperties" is not supported',
  ],
  [
    "then/else without if",
    // Parsed, because an object literal with a `then` key looks like a promise.
    at(JSON.parse('{ "type": "string", "then": {}, "else": {} }')),
    '#/properties/q: keyword "then" needs "if" beside it; #/properties/q: keyword "else" needs "if" beside it',
  ],
  [
    "dependentSchemas",
    { type: "object", dependentSchemas: { a: {} } },
    '#: keyword "dependentSchemas" is not supported',
  ],
  [
    "dependentRequired that is not a map of names",
    { type: "object", dependentRequired: { a: "b" } },
    '#: "dependentRequired" must map property names to arrays of distinct property names',
  ],
  [
    "unevaluatedProperties",
    { type: "object", unevaluatedProperties: false },
    '#: keyword "unevaluatedProperties" is not supported',
  ],
  [
    "unevaluatedItems",
    at({ type: "array", unevaluatedItems: false }),
    '#/properties/q: keyword "unevaluatedItems" is not supported',
  ],
  [
    "a custom extension",
    at({ type: "string", "x-secret": true }),
    '#/properties/q: keyword "x-secret" is not supported',
  ],
  [
    "an unknown keyword",
    at({ type: "string", nullable: true }),
    '#/properties/q: keyword "nullable" is not supported',
  ],
  [
    "a pattern with a backreference",
    at({ type: "string", pattern: "(a)\\1" }),
    '#/properties/q: "pattern" uses a backreference, which the linear-time engine cannot match',
  ],
  [
    "a pattern with lookahead",
    at({ type: "string", pattern: "^(?=a)" }),
    '#/properties/q: "pattern" uses a lookaround assertion',
  ],
  [
    "a pattern that is not ECMA-262 with the u flag",
    at({ type: "string", pattern: "\\-" }),
    '#/properties/q: "pattern" is not a valid ECMA-262 regular expression with the "u" flag (Invalid regular expression: /\\-/u: Invalid escape)',
  ],
  [
    "pattern without type",
    at({ pattern: "^a" }),
    '#/properties/q: keyword "pattern" needs "type" to include "string"',
  ],
  [
    "multipleOf zero",
    at({ type: "number", multipleOf: 0 }),
    '#/properties/q: "multipleOf" must be a number greater than 0',
  ],
  ["an empty allOf", at({ allOf: [] }), '#/properties/q: "allOf" must be a non-empty array of schemas'],
  [
    "allOf next to anyOf",
    at({ anyOf: [{ type: "string" }], allOf: [{ type: "string" }] }),
    '#/properties/q: keyword "allOf" next to "anyOf" is not supported; move it into each branch',
  ],
  ["not", at({ not: { type: "string" } }), '#/properties/q: keyword "not" is not supported'],
  [
    "uniqueItems that is not a boolean",
    at({ type: "array", uniqueItems: 1 }),
    '#/properties/q: "uniqueItems" must be a boolean',
  ],
  [
    "maxContains without contains",
    at({ type: "array", maxContains: 1 }),
    '#/properties/q: keyword "maxContains" needs "contains" beside it',
  ],
  [
    "an unbounded integer in a bounded contains",
    at({ type: "array", contains: { type: "integer" }, maxContains: 1 }),
    '#/properties/q/contains: an "integer" inside "oneOf" or a bounded "contains" needs "minimum" and "maximum" within ±9007199254740991, which zod enforces anyway',
  ],
  [
    "a boolean propertyNames",
    at({ type: "object", propertyNames: false }),
    '#/properties/q/propertyNames: boolean schemas are supported only as the value of "additionalProperties", and of "items" beside "prefixItems"',
  ],
  [
    "prefixItems in a draft-07 schema",
    { $schema: "http://json-schema.org/draft-07/schema#", ...at({ type: "array", prefixItems: [{}] }) },
    '#/properties/q: keyword "prefixItems" is not part of the schema\'s dialect (draft-07)',
  ],
  [
    "dependentRequired in a draft-07 schema",
    { $schema: "http://json-schema.org/draft-07/schema#", type: "object", dependentRequired: {} },
    '#: keyword "dependentRequired" is not part of the schema\'s dialect (draft-07)',
  ],
  [
    "const in a draft-04 schema",
    { $schema: "http://json-schema.org/draft-04/schema#", ...at({ const: 1 }) },
    '#/properties/q: keyword "const" is not part of the schema\'s dialect (draft-04)',
  ],
  ["$id", { type: "object", $id: "https://example.com/s" }, '#: keyword "$id" is not supported'],
  [
    "$anchor outside $defs",
    at({ type: "string", $anchor: "a" }),
    '#/properties/q: keyword "$anchor" is supported only on a schema in "$defs" or "definitions"',
  ],
  [
    "a $ref to an $anchor",
    { type: "object", $defs: { a: { $anchor: "a", type: "string" } }, properties: { q: { $ref: "#a" } } },
    '#/properties/q: "$ref" "#a" names an "$anchor", which is not resolved; use a JSON pointer such as "#/$defs/…"',
  ],
  [
    "if with a boolean then",
    at(JSON.parse('{ "type": "string", "if": {}, "then": false }')),
    '#/properties/q/then: boolean schemas are supported only as the value of "additionalProperties", and of "items" beside "prefixItems"',
  ],
  [
    "a remote $ref",
    at({ $ref: "https://example.com/s.json" }),
    `#/properties/q: "$ref" "https://example.com/s.json" ${NOT_LOCAL}`,
  ],
  [
    "a $ref to a property that does not exist",
    at({ $ref: "#/properties/a" }),
    '#/properties/q: "$ref" "#/properties/a" does not resolve to a schema',
  ],
  [
    "a $ref to the root",
    at({ $ref: "#" }),
    '#/properties/q/properties/q: "$ref" "#" is recursive, which is not supported',
  ],
  [
    "a $ref to a value that is not a schema",
    { type: "object", required: ["q"], properties: { q: { $ref: "#/required/0" } } },
    '#/properties/q: "$ref" "#/required/0" does not resolve to a schema',
  ],
  [
    "a dangling $ref",
    at({ $ref: "#/$defs/Missing" }),
    '#/properties/q: "$ref" "#/$defs/Missing" does not resolve to a schema',
  ],
  [
    "a recursive $ref",
    {
      type: "object",
      properties: { q: { $ref: "#/$defs/Node" } },
      $defs: { Node: { type: "object", properties: { next: { $ref: "#/$defs/Node" } } } },
    },
    '#/properties/q/properties/next: "$ref" "#/$defs/Node" is recursive, which is not supported',
  ],
  [
    "validation next to $ref",
    {
      type: "object",
      properties: { q: { $ref: "#/$defs/A", maxLength: 2 } },
      $defs: { A: { type: "string" } },
    },
    '#/properties/q: keyword "maxLength" next to "$ref" is not supported; #/properties/q: keyword "maxLength" needs "type" to include "string"',
  ],
  [
    "an unused definition with a bad keyword",
    { type: "object", $defs: { A: { type: "string", not: {} } } },
    '#/$defs/A: keyword "not" is not supported',
  ],
  [
    "nested $defs",
    at({ type: "object", $defs: {} }),
    '#/properties/q: keyword "$defs" is supported only at the root',
  ],
  [
    "nested $schema",
    at({ type: "string", $schema: "x" }),
    '#/properties/q: keyword "$schema" is supported only at the root',
  ],
  [
    "properties without type",
    at({ properties: { a: { type: "string" } } }),
    '#/properties/q: keyword "properties" needs "type" to include "object"',
  ],
  [
    "deeply nested properties without type",
    at({ type: "array", items: { anyOf: [{ properties: {} }] } }),
    '#/properties/q/items/anyOf/0: keyword "properties" needs "type" to include "object"',
  ],
  [
    "required without type",
    at({ required: ["a"] }),
    '#/properties/q: keyword "required" needs "type" to include "object"; #/properties/q: "required" lists "a", which "properties" does not declare',
  ],
  [
    "minLength on a number",
    at({ type: "number", minLength: 1 }),
    '#/properties/q: keyword "minLength" needs "type" to include "string"',
  ],
  [
    "items without type",
    at({ items: { type: "string" } }),
    '#/properties/q: keyword "items" needs "type" to include "array"',
  ],
  [
    "a tuple",
    at({ type: "array", items: [{ type: "string" }] }),
    '#/properties/q: the array form of "items" (a draft-07 tuple) is not supported; use "prefixItems"',
  ],
  [
    "an undeclared required name",
    { type: "object", properties: {}, required: ["a"] },
    '#: "required" lists "a", which "properties" does not declare',
  ],
  [
    "enum values outside type",
    at({ type: "string", enum: ["a", 1] }),
    '#/properties/q: every "enum" value must match "type"',
  ],
  [
    "an object in enum",
    at({ enum: [{ a: 1 }] }),
    '#/properties/q: "enum" values must be strings, numbers, booleans or null',
  ],
  [
    "an array const",
    at({ const: [1] }),
    '#/properties/q: "const" values must be strings, numbers, booleans or null',
  ],
  ["an empty enum", at({ enum: [] }), '#/properties/q: "enum" must be a non-empty array'],
  [
    "a constraint next to enum",
    at({ type: "string", enum: ["a"], minLength: 2 }),
    '#/properties/q: keyword "minLength" next to "enum" is not supported',
  ],
  [
    "type next to anyOf",
    at({ type: "string", anyOf: [{ type: "string" }] }),
    '#/properties/q: keyword "type" next to "anyOf" is not supported; move it into each branch',
  ],
  [
    "anyOf next to oneOf",
    at({ anyOf: [{ type: "string" }], oneOf: [{ type: "string" }] }),
    '#/properties/q: keyword "oneOf" next to "anyOf" is not supported; move it into each branch; #/properties/q: keyword "anyOf" next to "oneOf" is not supported; move it into each branch',
  ],
  ["an empty oneOf", at({ oneOf: [] }), '#/properties/q: "oneOf" must be a non-empty array of schemas'],
  [
    "an unbounded integer in oneOf",
    at({ oneOf: [{ type: "object", properties: { n: { type: "integer" } } }, { type: "string" }] }),
    '#/properties/q/oneOf/0/properties/n: an "integer" inside "oneOf" or a bounded "contains" needs "minimum" and "maximum" within ±9007199254740991, which zod enforces anyway',
  ],
  [
    "draft-04 exclusiveMinimum in a 2020-12 schema",
    {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      ...at({ type: "number", minimum: 0, exclusiveMinimum: true }),
    },
    '#/properties/q: the boolean form of "exclusiveMinimum" exists in draft-04 only, not in the schema\'s dialect (2020-12)',
  ],
  [
    "draft-04 exclusiveMaximum without maximum",
    at({ type: "number", exclusiveMaximum: true }),
    '#/properties/q: the boolean form of "exclusiveMaximum" (draft-04) needs a numeric "maximum" beside it',
  ],
  [
    "a numeric exclusiveMinimum in a draft-04 schema",
    { $schema: "http://json-schema.org/draft-04/schema#", ...at({ type: "number", exclusiveMinimum: 1 }) },
    '#/properties/q: "exclusiveMinimum" must be a boolean in draft-04',
  ],
  [
    "a fractional maxLength",
    at({ type: "string", maxLength: 1.5 }),
    '#/properties/q: "maxLength" must be a non-negative integer',
  ],
  [
    "an unknown type",
    at({ type: "text" }),
    '#/properties/q: "type" must be one of object, array, string, number, integer, boolean, null or a non-empty array of distinct ones',
  ],
  [
    "a boolean property schema",
    at(true),
    '#/properties/q: boolean schemas are supported only as the value of "additionalProperties", and of "items" beside "prefixItems"',
  ],
  [
    "a non-string title",
    at({ type: "string", title: 1 }),
    '#/properties/q: annotation "title" must be a string',
  ],
  [
    "a __proto__ property",
    JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
    '#/properties/__proto__: a property named "__proto__" is not supported',
  ],
  [
    "a property name needing escapes",
    { type: "object", properties: { "a/b~c": { type: "string", not: {} } } },
    '#/properties/a~1b~0c: keyword "not" is not supported',
  ],
];

describe("convertInputSchema rejects what it cannot enforce exactly", () => {
  it.each(REJECTED)("%s", (_case, schema, reason) => {
    const conversion = convertInputSchema(schema);
    expect(conversion).toMatchObject({ ok: false, code: UNSUPPORTED_INPUT_SCHEMA, reason });
  });

  it("lists every issue separately, each with its pointer", () => {
    const conversion = convertInputSchema({
      type: "object",
      properties: { a: { type: "string", not: {} }, b: { type: "object", patternProperties: {} } },
    });
    expect(conversion.ok).toBe(false);
    if (conversion.ok) return;
    expect(conversion.issues).toEqual([
      { pointer: "#/properties/a", message: 'keyword "not" is not supported' },
      { pointer: "#/properties/b", message: 'keyword "patternProperties" is not supported' },
    ]);
  });

  it("rejects output schemas by the same rules, with their own code", () => {
    const conversion = convertOutputSchema({
      type: "object",
      properties: { a: { type: "string", format: "uri", not: {} } },
    });
    expect(conversion).toMatchObject({
      ok: false,
      code: UNSUPPORTED_OUTPUT_SCHEMA,
      reason: '#/properties/a: keyword "not" is not supported',
    });
    expect(convertOutputSchema({ type: "array" })).toMatchObject({
      ok: false,
      reason: '#: outputSchema must have "type": "object" at its root, got "array"',
    });
  });

  it("bounds the size that inlining $refs may reach", () => {
    // Each level references the previous one twice: 2^20 copies if inlined blindly.
    const $defs: Record<string, object> = { L0: { type: "string" } };
    for (let level = 1; level <= 20; level += 1) {
      $defs[`L${level}`] = {
        type: "object",
        properties: { a: { $ref: `#/$defs/L${level - 1}` }, b: { $ref: `#/$defs/L${level - 1}` } },
      };
    }
    const conversion = convertInputSchema({
      type: "object",
      properties: { q: { $ref: "#/$defs/L20" } },
      $defs,
    });
    expect(conversion).toMatchObject({
      ok: false,
      reason: '#: inlining its "$ref"s would exceed 10000 schema nodes',
    });
  });
});
