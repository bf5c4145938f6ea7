import type { JsonObject } from "@agent/tools";
import { type ZodType, z } from "zod";
import { AnnotationRegistry } from "./annotation-registry.js";
import { checkJsonSchema, type SchemaIssue, type SchemaRole } from "./check-schema.js";
import { inlineRefs } from "./inline-refs.js";
import { ROOT_POINTER } from "./json-pointer.js";
import { prepareForZod } from "./prepare-for-zod.js";

/** The code of a remote tool rejected because its `inputSchema` cannot be converted exactly. */
export const UNSUPPORTED_INPUT_SCHEMA = "unsupported_input_schema";

/** The code of a remote tool's `outputSchema` that cannot be converted exactly. */
export const UNSUPPORTED_OUTPUT_SCHEMA = "unsupported_output_schema";

/** One of {@link UNSUPPORTED_INPUT_SCHEMA} and {@link UNSUPPORTED_OUTPUT_SCHEMA}. */
export type SchemaConversionCode = typeof UNSUPPORTED_INPUT_SCHEMA | typeof UNSUPPORTED_OUTPUT_SCHEMA;

/**
 * A converted schema: `schema` validates, `parameters` is the JSON Schema the model is shown, and both
 * come from the same zod schema. Or a failure naming every offending keyword by JSON pointer.
 */
export type SchemaConversion =
  | { ok: true; schema: ZodType; parameters: JsonObject }
  | { ok: false; code: SchemaConversionCode; reason: string; issues: SchemaIssue[] };

/** Converts a remote tool's `inputSchema` into a local validator and model-visible parameters. */
export function convertInputSchema(inputSchema: unknown): SchemaConversion {
  return convert(inputSchema, "inputSchema", UNSUPPORTED_INPUT_SCHEMA);
}

/** Converts a remote tool's `outputSchema` into a validator for its `structuredContent`, by the same rules. */
export function convertOutputSchema(outputSchema: unknown): SchemaConversion {
  return convert(outputSchema, "outputSchema", UNSUPPORTED_OUTPUT_SCHEMA);
}

/** Renders an issue as `#/pointer: message`, the form failures are reported in. */
export function formatSchemaIssue(issue: SchemaIssue): string {
  return `${issue.pointer}: ${issue.message}`;
}

function convert(input: unknown, role: SchemaRole, code: SchemaConversionCode): SchemaConversion {
  const fail = (issues: SchemaIssue[]): SchemaConversion => ({
    ok: false,
    code,
    reason: issues.map(formatSchemaIssue).join("; "),
    issues,
  });
  const issues = checkJsonSchema(input, role);
  if (issues.length > 0) return fail(issues);
  const inlined = inlineRefs(input as Record<string, unknown>);
  if (!inlined.ok) return fail(inlined.issues);
  // Inlining moves definitions under their users (e.g. into a oneOf branch): check what zod will see.
  const inlinedIssues = checkJsonSchema(inlined.schema, role);
  if (inlinedIssues.length > 0) return fail(inlinedIssues);
  let schema: ZodType;
  let generated: Record<string, unknown>;
  try {
    schema = z.fromJSONSchema(prepareForZod(inlined.schema) as z.core.JSONSchema.JSONSchema, {
      registry: new AnnotationRegistry(),
    });
    // The same call defineTool makes, so the parameters here are the ones the model will see.
    generated = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" }) as Record<string, unknown>;
  } catch (cause) {
    // The checks above admit only what zod converts; reaching this means a zod upgrade changed that.
    const message = cause instanceof Error ? cause.message : String(cause);
    return fail([{ pointer: ROOT_POINTER, message: `zod could not convert the schema: ${message}` }]);
  }
  const { $schema: _dialect, ...parameters } = generated;
  return { ok: true, schema, parameters: parameters as JsonObject };
}
