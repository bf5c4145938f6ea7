import { defineTool, toStrictParameters } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { convertInputSchema, convertOutputSchema } from "../src/schema/index.js";
import { mismatches, NO_MISMATCHES, runDifferential } from "./fixtures/differential.js";
import { generateInputs } from "./fixtures/json-generator.js";
import { REFERENCE_TOOLS } from "./fixtures/reference-tools.js";
import { runStrictDifferential } from "./fixtures/strict-differential.js";

const INPUTS_PER_TOOL = 300;

const CASES = REFERENCE_TOOLS.map((tool, index) => [tool.label, tool, index] as const);

describe("reference servers: zod agrees with Ajv on generated inputs", () => {
  it.each(CASES)("%s inputSchema", (_label, tool, index) => {
    const conversion = convertInputSchema(tool.inputSchema);
    if (!conversion.ok) throw new Error(conversion.reason);
    const inputs = generateInputs(tool.inputSchema, INPUTS_PER_TOOL, 50_000 + index);
    const report = runDifferential(tool.inputSchema, conversion.schema, conversion.parameters, inputs);
    expect(mismatches(report)).toEqual(NO_MISMATCHES);
    expect(report.accepted).toBeGreaterThan(0);
    expect(report.rejected).toBeGreaterThan(0);
  });

  it.each(CASES.filter(([, tool]) => tool.outputSchema !== undefined))(
    "%s outputSchema",
    (_label, tool, index) => {
      const conversion = convertOutputSchema(tool.outputSchema);
      if (!conversion.ok) throw new Error(conversion.reason);
      const inputs = generateInputs(tool.outputSchema, INPUTS_PER_TOOL, 60_000 + index);
      const report = runDifferential(tool.outputSchema, conversion.schema, conversion.parameters, inputs);
      expect(mismatches(report)).toEqual(NO_MISMATCHES);
    },
  );
});

describe("reference servers: the strict function-calling variant", () => {
  it.each(CASES)("%s", (_label, tool, index) => {
    const conversion = convertInputSchema(tool.inputSchema);
    if (!conversion.ok) throw new Error(conversion.reason);
    const { schema, parameters } = conversion;
    const strict = toStrictParameters(parameters);
    if (!strict.compatible) throw new Error(strict.reason);
    const report = runStrictDifferential(
      tool.inputSchema,
      schema,
      parameters,
      INPUTS_PER_TOOL,
      70_000 + index,
    );
    expect(report.strict).toEqual(strict);
    expect(report.problems).toEqual([]);
    expect(report.strictAccepted).toBeGreaterThan(0);
  });

  it("closes every object, requires every property and lets optional ones be null", () => {
    const tool = REFERENCE_TOOLS.find((candidate) => candidate.label === "server-filesystem/edit_file");
    const conversion = convertInputSchema(tool?.inputSchema);
    if (!conversion.ok) throw new Error(conversion.reason);
    expect(toStrictParameters(conversion.parameters)).toEqual({
      compatible: true,
      parameters: {
        type: "object",
        properties: {
          path: { type: "string" },
          edits: {
            type: "array",
            items: {
              type: "object",
              properties: {
                oldText: { type: "string", description: "Text to search for - must match exactly" },
                newText: { type: "string", description: "Text to replace with" },
              },
              required: ["oldText", "newText"],
              additionalProperties: false,
            },
          },
          dryRun: {
            type: ["boolean", "null"],
            default: false,
            description: "Preview changes using git-style diff format",
          },
        },
        required: ["path", "edits", "dryRun"],
        additionalProperties: false,
      },
    });
  });

  it("maps a null for an optional field back to absent, and only that", () => {
    const tool = REFERENCE_TOOLS.find((candidate) => candidate.label === "server-filesystem/read_text_file");
    const conversion = convertInputSchema(tool?.inputSchema);
    if (!conversion.ok) throw new Error(conversion.reason);
    const registered = defineTool({
      name: "read",
      description: "",
      schema: conversion.schema,
      effect: "external",
      execute: () => null,
    });
    expect(registered.prepare({ path: "a", head: null, tail: null })).toMatchObject({
      ok: true,
      input: { path: "a" },
    });
    expect(registered.prepare({ path: null, head: 1, tail: null }).ok).toBe(false);
    expect(registered.prepare({ path: "a", head: "1", tail: null }).ok).toBe(false);
  });
});
