import { describe, expect, it } from "vitest";
import { checkInputSchema, convertInputSchema } from "../src/schema/index.js";

/** The schema the conformance scenario json-schema-2020-12-preservation lists. */
const contactSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

function validator(schema: unknown) {
  const converted = convertInputSchema(schema);
  if (!converted.ok) throw new Error(converted.reason);
  return (value: unknown) => converted.schema.safeParse(value).success;
}

function reasonOf(schema: unknown): string {
  const checked = checkInputSchema(schema);
  return checked.ok ? "" : checked.reason;
}

describe("if/then/else, $anchor and typeless applicator branches", () => {
  it("accepts the 2020-12 contact schema and validates it exactly", () => {
    const valid = validator(contactSchema);
    expect(valid({ contactMethod: "phone", phone: "1" })).toBe(true);
    expect(valid({ contactMethod: "email", email: "a@b" })).toBe(true);
    expect(valid({ email: "a@b", address: { city: "X" } })).toBe(true);
    expect(valid({ contactMethod: "phone", email: "a@b" })).toBe(false); // then: phone required
    expect(valid({ contactMethod: "email", phone: "1" })).toBe(false); // else: email required
    expect(valid({ phone: "1" })).toBe(false); // no contactMethod: else applies
    expect(valid({ name: "n" })).toBe(false); // anyOf: neither phone nor email
    expect(valid({ email: "a@b", fax: "2" })).toBe(false); // additionalProperties: false
    expect(valid({ email: "a@b", address: { city: 3 } })).toBe(false); // $ref still applies
  });

  it("treats a missing then or else as true", () => {
    const onlyThen = validator({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
      if: { required: ["a"] },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
      then: { required: ["b"] },
    });
    expect(onlyThen({})).toBe(true);
    expect(onlyThen({ a: "x", b: "y" })).toBe(true);
    expect(onlyThen({ a: "x" })).toBe(false);
    const onlyElse = validator({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "string" } },
      if: { required: ["a"] },
      else: { required: ["b"] },
    });
    expect(onlyElse({ a: "x" })).toBe(true);
    expect(onlyElse({})).toBe(false);
  });

  it("resolves a $ref inside a conditional branch", () => {
    const valid = validator(
      JSON.parse(`{
        "type": "object",
        "$defs": { "short": { "type": "string", "maxLength": 2 } },
        "properties": { "a": { "type": "boolean" }, "b": { "type": "string" } },
        "if": { "properties": { "a": { "const": true } }, "required": ["a"] },
        "then": { "properties": { "b": { "$ref": "#/$defs/short" } } }
      }`),
    );
    expect(valid({ a: true, b: "xy" })).toBe(true);
    expect(valid({ a: true, b: "xyz" })).toBe(false);
    expect(valid({ a: false, b: "xyz" })).toBe(true);
  });

  it("shows if/then/else and allOf/anyOf in the parameters", () => {
    const converted = convertInputSchema(contactSchema);
    if (!converted.ok) throw new Error(converted.reason);
    const { parameters } = converted;
    expect(parameters.additionalProperties).toBe(false);
    expect(parameters).toHaveProperty("allOf.0.anyOf.0.required", ["phone"]);
    expect(parameters).toHaveProperty("if.required", ["contactMethod"]);
    expect(parameters).toHaveProperty("then.required", ["phone"]);
    expect(parameters).toHaveProperty("else.required", ["email"]);
  });

  it("still refuses a required name no schema declares", () => {
    expect(
      reasonOf({
        type: "object",
        properties: { a: { type: "string" } },
        allOf: [{ anyOf: [{ required: ["a"] }, { required: ["fax"] }] }],
        additionalProperties: false,
      }),
    ).toContain(`#/allOf/0/anyOf/1: "required" lists "fax", which "properties" does not declare`);
  });

  it("refuses a typeless required where the value may not be an object", () => {
    expect(
      reasonOf({
        type: "object",
        properties: { a: { type: ["object", "string"], anyOf: [{ required: ["a"] }] } },
      }),
    ).toContain('needs "type" to include "object"');
  });

  it("refuses then/else without if, a $ref to an anchor and $anchor outside $defs", () => {
    expect(reasonOf(JSON.parse(`{"type":"object","then":{"required":[]}}`))).toContain(
      `keyword "then" needs "if" beside it`,
    );
    expect(
      reasonOf({
        type: "object",
        $defs: { a: { $anchor: "aDef", type: "string" } },
        properties: { x: { $ref: "#aDef" } },
      }),
    ).toContain(`names an "$anchor", which is not resolved`);
    expect(reasonOf({ type: "object", properties: { x: { $anchor: "x", type: "string" } } })).toContain(
      `"$anchor" is supported only on a schema in "$defs"`,
    );
    expect(reasonOf({ type: "object", $defs: { a: { $anchor: "1bad", type: "string" } } })).toContain(
      `"$anchor" must be a name`,
    );
  });

  it("holds an integer in if to oneOf's rule, since a stricter if would flip the branch", () => {
    expect(
      reasonOf({
        type: "object",
        properties: { n: { type: "integer" } },
        if: { properties: { n: { type: "integer" } } },
        // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
        then: { required: ["n"] },
      }),
    ).toContain(`an "integer" inside "oneOf"`);
  });
});

describe("a conditional where the converter would drop it", () => {
  // Shown to the model as written, so it must be enforced or refused, never silently lost.
  const big = { type: "object", properties: { kind: { const: "big" } }, required: ["kind"] };
  const needsN = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };

  it("refuses if/then/else next to $ref (inlining keeps only the target)", () => {
    const schema = {
      type: "object",
      $defs: { base: { type: "object", properties: { kind: { type: "string" }, n: { type: "number" } } } },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
      properties: { p: { $ref: "#/$defs/base", if: big, then: needsN } },
    };
    expect(reasonOf(schema)).toContain('keyword "if" next to "$ref" is not supported');
    expect(reasonOf(schema)).toContain('keyword "then" next to "$ref" is not supported');
  });

  it("refuses if/then/else next to enum or const (literals carry no other keyword)", () => {
    const schema = {
      type: "object",
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
      properties: { p: { enum: ["a", "b"], if: { const: "a" }, then: { const: "b" } } },
    };
    expect(reasonOf(schema)).toContain('keyword "if" next to "enum" is not supported');
  });

  it("refuses if/then/else next to anyOf or oneOf (unions stay pure)", () => {
    const schema = {
      type: "object",
      properties: {
        p: {
          anyOf: [{ type: "string" }, { type: "number" }],
          if: { type: "string" },
          // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword
          then: { minLength: 2 },
        },
      },
    };
    expect(reasonOf(schema)).toContain('keyword "if" next to "anyOf" is not supported');
  });
});
