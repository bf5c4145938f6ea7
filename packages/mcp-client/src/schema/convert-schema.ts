import { messageOf } from "@agent/base";
import type { JsonObject } from "@agent/tools";
import { type ZodType, z } from "zod";
import { checkJsonSchema, type SchemaIssue, type SchemaRole } from "./check-schema.js";
import { inlineRefs } from "./inline-refs.js";
import { ROOT_POINTER } from "./json-pointer.js";
import { validatingOwnProperties } from "./own-input.js";
import type { SchemaNode } from "./subschemas.js";
import { nodeToZod } from "./to-zod.js";

/** The code of a remote tool rejected because its `inputSchema` cannot be converted exactly. */
export const UNSUPPORTED_INPUT_SCHEMA = "unsupported_input_schema";

/** The code of a remote tool's `outputSchema` that cannot be converted exactly. */
export const UNSUPPORTED_OUTPUT_SCHEMA = "unsupported_output_schema";

/** One of {@link UNSUPPORTED_INPUT_SCHEMA} and {@link UNSUPPORTED_OUTPUT_SCHEMA}. */
export type SchemaConversionCode = typeof UNSUPPORTED_INPUT_SCHEMA | typeof UNSUPPORTED_OUTPUT_SCHEMA;

/** Why a schema cannot be converted: every offending keyword, by JSON pointer. */
export interface SchemaConversionFailure {
  ok: false;
  code: SchemaConversionCode;
  reason: string;
  issues: SchemaIssue[];
}

/**
 * A converted schema: `schema` validates, `parameters` is the JSON Schema the model is shown, and both
 * come from the same zod schema. Or a failure naming every offending keyword by JSON pointer.
 */
export type SchemaConversion =
  | { ok: true; schema: ZodType; parameters: JsonObject }
  | SchemaConversionFailure;

/**
 * A remote schema that passed every check, with its references inlined: what
 * {@link zodFromCheckedSchema} converts. Or a failure naming every offending keyword by JSON pointer.
 */
export type CheckedSchema = { ok: true; schema: SchemaNode } | SchemaConversionFailure;

/** Converts a remote tool's `inputSchema` into a local validator and model-visible parameters. */
export function convertInputSchema(inputSchema: unknown): SchemaConversion {
  return convert(checkInputSchema(inputSchema), UNSUPPORTED_INPUT_SCHEMA);
}

/** Converts a remote tool's `outputSchema` into a validator for its `structuredContent`, by the same rules. */
export function convertOutputSchema(outputSchema: unknown): SchemaConversion {
  return convert(checkOutputSchema(outputSchema), UNSUPPORTED_OUTPUT_SCHEMA);
}

/**
 * Converts a remote tool's `outputSchema` into its validator alone: no model is shown an output
 * schema, so generating its parameters would be work for nothing.
 */
export function convertOutputSchemaToZod(
  outputSchema: unknown,
): { ok: true; schema: ZodType } | SchemaConversionFailure {
  const checked = checkOutputSchema(outputSchema);
  if (!checked.ok) return checked;
  try {
    return { ok: true, schema: zodFromCheckedSchema(checked.schema) };
  } catch (cause) {
    return zodConversionFailure(UNSUPPORTED_OUTPUT_SCHEMA, cause);
  }
}

/**
 * Runs every check on a remote tool's `inputSchema`, at discovery, without converting it. Whatever
 * passes converts: the checks admit only keywords zod converts (the property tests hold zod to that).
 */
export function checkInputSchema(inputSchema: unknown): CheckedSchema {
  return check(inputSchema, "inputSchema", UNSUPPORTED_INPUT_SCHEMA);
}

/** Runs every check on a remote tool's `outputSchema`, by the rules of {@link checkInputSchema}. */
export function checkOutputSchema(outputSchema: unknown): CheckedSchema {
  return check(outputSchema, "outputSchema", UNSUPPORTED_OUTPUT_SCHEMA);
}

/**
 * The zod schema of a schema that {@link checkInputSchema} or {@link checkOutputSchema} accepted. It
 * throws only if zod stopped converting what the checks admit (a zod upgrade).
 */
export function zodFromCheckedSchema(checked: SchemaNode): ZodType {
  // `$schema` only told the checks which dialect to hold the keywords to; zod never sees it.
  const { $schema: _dialect, ...body } = checked;
  return validatingOwnProperties(nodeToZod(body));
}

/** Renders an issue as `#/pointer: message`, the form failures are reported in. */
export function formatSchemaIssue(issue: SchemaIssue): string {
  return `${issue.pointer}: ${issue.message}`;
}

/** The failure of a schema that passed the checks but that zod could not convert (or convert back). */
function zodConversionFailure(code: SchemaConversionCode, cause: unknown): SchemaConversionFailure {
  // The checks admit only what zod converts; reaching this means a zod upgrade changed that.
  return failure(code, [
    { pointer: ROOT_POINTER, message: `zod could not convert the schema: ${messageOf(cause)}` },
  ]);
}

function failure(code: SchemaConversionCode, issues: SchemaIssue[]): SchemaConversionFailure {
  return { ok: false, code, reason: issues.map(formatSchemaIssue).join("; "), issues };
}

function check(input: unknown, role: SchemaRole, code: SchemaConversionCode): CheckedSchema {
  const issues = checkJsonSchema(input, role);
  if (issues.length > 0) return failure(code, issues);
  const inlined = inlineRefs(input as SchemaNode);
  if (!inlined.ok) return failure(code, inlined.issues);
  if (inlined.inlined) {
    // Inlining moves definitions under their users (e.g. into a oneOf branch): check what zod will see.
    const inlinedIssues = checkJsonSchema(inlined.schema, role);
    if (inlinedIssues.length > 0) return failure(code, inlinedIssues);
  }
  return { ok: true, schema: inlined.schema };
}

function convert(checked: CheckedSchema, code: SchemaConversionCode): SchemaConversion {
  if (!checked.ok) return checked;
  try {
    const schema = zodFromCheckedSchema(checked.schema);
    // The same call defineTool makes, so the parameters here are the ones the model will see.
    const generated = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" });
    const { $schema: _dialect, ...parameters } = generated as Record<string, unknown>;
    return { ok: true, schema, parameters: parameters as JsonObject };
  } catch (cause) {
    return zodConversionFailure(code, cause);
  }
}
