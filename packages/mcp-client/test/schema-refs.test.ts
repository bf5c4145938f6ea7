import { describe, expect, it } from "vitest";
import { convertInputSchema } from "../src/schema/index.js";
import { mismatches, NO_MISMATCHES, runDifferential } from "./fixtures/differential.js";
import { generateInputs } from "./fixtures/json-generator.js";

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

/** Schemas with local references, as pydantic (`$defs`) and older generators (`definitions`) write them. */
const SCHEMAS: [string, object][] = [
  [
    "pydantic-style $defs",
    {
      $schema: DRAFT_2020,
      type: "object",
      title: "Order",
      properties: {
        item: { $ref: "#/$defs/Item" },
        gift: { anyOf: [{ $ref: "#/$defs/Item" }, { type: "null" }], default: null, title: "Gift" },
        color: { $ref: "#/$defs/Color", default: "red" },
      },
      required: ["item"],
      $defs: {
        Item: {
          type: "object",
          title: "Item",
          properties: {
            sku: { type: "string", minLength: 3 },
            quantity: { type: "integer", minimum: 1, maximum: 99 },
          },
          required: ["sku", "quantity"],
          additionalProperties: false,
        },
        Color: { type: "string", enum: ["red", "green"], title: "Color" },
      },
    },
  ],
  [
    "zod-to-json-schema's references into properties, as server-sequential-thinking sends them",
    {
      $schema: DRAFT_07,
      type: "object",
      properties: {
        done: { type: "boolean", description: "Finished?" },
        revised: { $ref: "#/properties/done", description: "Revised?" },
        list: { type: "array", items: { type: "string", maxLength: 3 } },
        more: { $ref: "#/properties/list/items" },
      },
      required: ["done", "more"],
      additionalProperties: false,
    },
  ],
  [
    "draft-07 definitions",
    {
      $schema: DRAFT_07,
      type: "object",
      properties: {
        point: { $ref: "#/definitions/Point" },
        points: { type: "array", items: { $ref: "#/definitions/Point" }, maxItems: 2 },
      },
      required: ["points"],
      definitions: {
        Point: {
          type: "object",
          properties: { x: { type: "number" }, y: { type: "number" } },
          required: ["x", "y"],
        },
      },
    },
  ],
  [
    "definitions that reference each other, with escaped names",
    {
      $schema: DRAFT_2020,
      type: "object",
      properties: { outer: { $ref: "#/$defs/Outer" } },
      required: ["outer"],
      $defs: {
        Outer: {
          type: "object",
          properties: { inner: { $ref: "#/$defs/in%20ner~1x" } },
          required: ["inner"],
        },
        "in ner/x": { type: ["string", "null"], maxLength: 2 },
      },
    },
  ],
  [
    "a reference inside oneOf, bounded as zod requires",
    {
      $schema: DRAFT_2020,
      type: "object",
      properties: { id: { oneOf: [{ $ref: "#/$defs/Id" }, { type: "string", minLength: 1 }] } },
      required: ["id"],
      $defs: { Id: { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER } },
    },
  ],
];

describe("local $refs are inlined and still agree with Ajv resolving them", () => {
  it.each(SCHEMAS.map(([name, schema], index) => [name, schema, index] as const))(
    "%s",
    (_name, schema, index) => {
      const conversion = convertInputSchema(schema);
      if (!conversion.ok) throw new Error(conversion.reason);
      expect(JSON.stringify(conversion.parameters)).not.toMatch(/"\$ref"|"\$defs"|"definitions"/);
      const report = runDifferential(
        schema,
        conversion.schema,
        conversion.parameters,
        generateInputs(schema, 400, 80_000 + index),
      );
      expect(mismatches(report)).toEqual(NO_MISMATCHES);
      expect(report.accepted).toBeGreaterThan(10);
      expect(report.rejected).toBeGreaterThan(10);
    },
  );

  it("gives each use of a definition its own copy of the annotations", () => {
    const [, schema] = SCHEMAS[0] as [string, object];
    const conversion = convertInputSchema(schema);
    if (!conversion.ok) throw new Error(conversion.reason);
    const properties = conversion.parameters.properties as Record<string, Record<string, unknown>>;
    expect(properties.color).toEqual({
      type: "string",
      enum: ["red", "green"],
      title: "Color",
      default: "red",
    });
    expect(properties.item).toMatchObject({ title: "Item", additionalProperties: false });
  });
});
