import { describe, expect, it } from "vitest";
import { z } from "zod";
import { convertInputSchema } from "../src/schema/index.js";
import { EDGE_STRINGS } from "./fixtures/json-generator.js";
import { REFERENCE_TOOLS } from "./fixtures/reference-tools.js";
import { compileWithFormats } from "./fixtures/reference-validator.js";

/** Strings on which URI and date-time validators are known to part ways. */
const FORMAT_PROBES = [
  ...EDGE_STRINGS,
  "https://ü.example/ä",
  "http://example.com:99999",
  "http://a/%zz",
  "x:y z",
  "a:",
  " http://a",
  "data:text/plain;base64,aGk=",
  "urn:isbn:0451450523",
  "2020-01-01T23:59:60Z",
  "2020-01-01t00:00:00z",
  "2020-01-01T00:00:00+0100",
  "a@b.c",
];

/** The inputs on which zod's own check for `format` and Ajv with ajv-formats disagree. */
function disagreements(format: string): string[] {
  const schema = { type: "string" as const, format };
  const zodCheck = z.fromJSONSchema(schema);
  const reference = compileWithFormats(schema);
  return FORMAT_PROBES.filter((probe) => zodCheck.safeParse(probe).success !== reference(probe));
}

describe("format is an annotation: shown to the model, checked by the server alone", () => {
  it("is needed: the reference servers declare format uri", () => {
    const formats = REFERENCE_TOOLS.flatMap((tool) =>
      Object.values((tool.inputSchema.properties ?? {}) as Record<string, { format?: string }>).flatMap(
        (property) => (property.format === undefined ? [] : [property.format]),
      ),
    );
    expect(new Set(formats)).toEqual(new Set(["uri"]));
  });

  it("cannot be enforced with zod: its checks disagree with ajv-formats", () => {
    expect(disagreements("uri")).toEqual([
      "https://ü.example/ä",
      "http://example.com:99999",
      "http://a/%zz",
      "x:y z",
      "a:",
      " http://a",
    ]);
    expect(disagreements("date-time")).toEqual([
      "2020-01-01T23:59:60Z",
      "2020-01-01t00:00:00z",
      "2020-01-01T00:00:00+0100",
    ]);
    expect(disagreements("email")).toContain("a@b.c");
  });

  it("is shown exactly as the server declared it and accepts every string", () => {
    const conversion = convertInputSchema({
      type: "object",
      properties: { url: { type: "string", format: "uri" }, when: { type: "string", format: "date-time" } },
    });
    if (!conversion.ok) throw new Error(conversion.reason);
    expect(conversion.parameters.properties).toEqual({
      url: { type: "string", format: "uri" },
      when: { type: "string", format: "date-time" },
    });
    for (const probe of FORMAT_PROBES) {
      expect(conversion.schema.safeParse({ url: probe, when: probe }).success).toBe(true);
    }
  });
});
