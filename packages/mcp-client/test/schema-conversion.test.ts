import { defineTool, type JsonObject } from "@agent/tools";
import { describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { convertInputSchema, convertOutputSchema, type SchemaConversion } from "../src/schema/index.js";
import { REFERENCE_TOOLS } from "./fixtures/reference-tools.js";

function converted(conversion: SchemaConversion): { schema: ZodType; parameters: JsonObject } {
  if (!conversion.ok) throw new Error(conversion.reason);
  return conversion;
}

function asTool(schema: ZodType) {
  return defineTool({
    name: "remote",
    description: "A remote tool",
    schema,
    effect: "external",
    execute: () => null,
  });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

describe("the reference servers' schemas", () => {
  it("are all there: every tool of both servers, conditional ones included", () => {
    expect(REFERENCE_TOOLS.map((tool) => tool.label)).toContain("server-everything/get-roots-list");
    expect(REFERENCE_TOOLS.map((tool) => tool.label)).toContain("server-everything/simulate-research-query");
    expect(REFERENCE_TOOLS.map((tool) => tool.label)).toContain("server-filesystem/read_multiple_files");
    expect(REFERENCE_TOOLS).toHaveLength(33);
  });

  it.each(REFERENCE_TOOLS.map((tool) => [tool.label, tool]))(
    "%s converts, and defineTool shows the same parameters",
    (_label, tool) => {
      const input = converted(convertInputSchema(deepFreeze(structuredClone(tool.inputSchema))));
      expect(input.parameters).not.toHaveProperty("$schema");
      expect(input.parameters.type).toBe("object");
      expect(asTool(input.schema).parameters).toEqual(input.parameters);
      if (tool.outputSchema !== undefined) {
        const output = converted(convertOutputSchema(tool.outputSchema));
        expect(output.parameters).not.toHaveProperty("$schema");
      }
    },
  );

  it("convert to the same definition every time, so fingerprints stay stable", () => {
    for (const tool of REFERENCE_TOOLS) {
      const first = asTool(converted(convertInputSchema(tool.inputSchema)).schema);
      const second = asTool(converted(convertInputSchema(tool.inputSchema)).schema);
      expect(second.fingerprint).toBe(first.fingerprint);
    }
  });
});

describe("annotations are shown to the model and never enforced or applied", () => {
  const schema = {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    title: "Fetch",
    $comment: "for maintainers",
    properties: {
      url: {
        type: "string",
        format: "uri",
        description: "Where to fetch",
        examples: ["https://example.com"],
      },
      retries: { type: "integer", minimum: 0, maximum: 5, default: 3, deprecated: true },
      mode: { type: "string", enum: ["fast", "safe"], default: "safe", readOnly: true, writeOnly: false },
      body: { type: "string", contentEncoding: "base64", contentMediaType: "application/octet-stream" },
    },
    required: ["url"],
  };

  it("keeps every annotation, in place, in the parameters", () => {
    const { parameters } = converted(convertInputSchema(schema));
    expect(parameters).toMatchObject({ title: "Fetch", $comment: "for maintainers" });
    expect(parameters.properties).toEqual({
      url: {
        type: "string",
        format: "uri",
        description: "Where to fetch",
        examples: ["https://example.com"],
      },
      retries: { type: "integer", minimum: 0, maximum: 5, default: 3, deprecated: true },
      mode: { type: "string", enum: ["fast", "safe"], default: "safe", readOnly: true, writeOnly: false },
      body: { type: "string", contentEncoding: "base64", contentMediaType: "application/octet-stream" },
    });
  });

  it("does not apply defaults: the server receives exactly what the model sent", () => {
    const { schema: validator } = converted(convertInputSchema(schema));
    expect(validator.parse({ url: "https://example.com" })).toEqual({ url: "https://example.com" });
  });

  it("does not check format: the server does that, as JSON Schema 2020-12 leaves it", () => {
    const { schema: validator } = converted(convertInputSchema(schema));
    expect(validator.safeParse({ url: "not a uri" }).success).toBe(true);
  });

  it("does not freeze readOnly values", () => {
    const { schema: validator } = converted(convertInputSchema(schema));
    expect(Object.isFrozen(validator.parse({ url: "u", mode: "fast" }))).toBe(false);
  });

  it("keeps a required property required even when it has a default", () => {
    const conversion = converted(
      convertInputSchema({
        type: "object",
        properties: { a: { type: "string", default: "x" } },
        required: ["a"],
      }),
    );
    expect(conversion.schema.safeParse({}).success).toBe(false);
    expect(conversion.parameters.required).toEqual(["a"]);
  });

  it("does not leak annotations between conversions", () => {
    converted(
      convertInputSchema({
        type: "object",
        properties: { a: { type: "string", default: "leak", format: "uri" } },
      }),
    );
    const plain = converted(convertInputSchema({ type: "object", properties: { a: { type: "string" } } }));
    expect(plain.parameters.properties).toEqual({ a: { type: "string" } });
  });
});

describe("validation keywords are enforced as shown", () => {
  it("enforces minItems even without items, and shows it", () => {
    const conversion = converted(
      convertInputSchema({
        type: "object",
        properties: { list: { type: "array", minItems: 1 } },
        required: ["list"],
      }),
    );
    expect(conversion.schema.safeParse({ list: [] }).success).toBe(false);
    expect(conversion.schema.safeParse({ list: [null] }).success).toBe(true);
    expect(conversion.parameters.properties).toEqual({ list: { type: "array", minItems: 1, items: {} } });
  });

  it("keeps additional properties in the forwarded input when the schema allows them", () => {
    const conversion = converted(
      convertInputSchema({ type: "object", properties: { a: { type: "string" } } }),
    );
    expect(conversion.schema.parse({ a: "x", extra: [1] })).toEqual({ a: "x", extra: [1] });
  });

  it("rejects additional properties when the schema closes the object", () => {
    const conversion = converted(
      convertInputSchema({
        type: "object",
        properties: { a: { type: "string" } },
        additionalProperties: false,
      }),
    );
    expect(conversion.schema.safeParse({ a: "x", extra: 1 }).success).toBe(false);
  });

  it("counts string length in code points, as JSON Schema does", () => {
    const conversion = converted(
      convertInputSchema({
        type: "object",
        properties: { s: { type: "string", maxLength: 1, minLength: 1 } },
      }),
    );
    expect(conversion.schema.safeParse({ s: "\u{1F600}" }).success).toBe(true);
    expect(conversion.schema.safeParse({ s: "ab" }).success).toBe(false);
  });
});

describe("$ref to local definitions", () => {
  it("inlines them, with the $ref's own annotations on top", () => {
    const conversion = converted(
      convertInputSchema({
        type: "object",
        properties: { color: { $ref: "#/$defs/Color", description: "Paint color", default: "red" } },
        required: ["color"],
        $defs: { Color: { type: "string", enum: ["red", "blue"], description: "A color" } },
      }),
    );
    expect(conversion.parameters).toEqual({
      type: "object",
      properties: {
        color: { type: "string", enum: ["red", "blue"], description: "Paint color", default: "red" },
      },
      required: ["color"],
      additionalProperties: {},
    });
    expect(conversion.schema.safeParse({ color: "green" }).success).toBe(false);
  });

  it("validates structured content against an output schema", () => {
    const media = REFERENCE_TOOLS.find((tool) => tool.label === "server-filesystem/read_media_file");
    const output = converted(convertOutputSchema(media?.outputSchema));
    const image = { type: "image", data: "aGk=", mimeType: "image/png" };
    expect(output.schema.safeParse({ content: [image] }).success).toBe(true);
    expect(output.schema.safeParse({ content: [{ ...image, type: "video" }] }).success).toBe(false);
    expect(output.schema.safeParse({ content: [image], extra: true }).success).toBe(false);
  });
});
