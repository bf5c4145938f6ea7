/**
 * The JSON Schema keywords the harness understands, by role; one table for every package. A remote
 * tool's schema may use these and nothing else: `@agent/mcp-client` accepts a keyword only if it is
 * a pure annotation (shown to the model, never enforced) or if its zod validator enforces exactly
 * what the keyword says, and its differential tests against Ajv hold each entry to that. The strict
 * variant (strict-parameters.ts) reads the same table to know which keywords can reject a value.
 * Adding a keyword here makes remote schemas that use it acceptable: add its enforcement and its
 * differential test in the same change.
 */

/** The JSON types a `type` keyword may name. */
export const JSON_TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"] as const;

/** One of {@link JSON_TYPES}. */
export type JsonType = (typeof JSON_TYPES)[number];

/** The shape an annotation's value must have. */
export type AnnotationValue = "string" | "boolean" | "array" | "any";

/**
 * Annotations: the model sees them in `parameters`, the local validator ignores them. `default` is
 * never applied (the server applies its own), `readOnly` freezes nothing, and `format` is not
 * asserted: JSON Schema 2020-12 treats it as an annotation, and zod's format checks disagree with
 * ajv-formats (see the tests).
 */
export const ANNOTATION_KEYWORDS: Readonly<Record<string, AnnotationValue>> = {
  title: "string",
  description: "string",
  $comment: "string",
  examples: "array",
  default: "any",
  deprecated: "boolean",
  readOnly: "boolean",
  writeOnly: "boolean",
  format: "string",
  contentEncoding: "string",
  contentMediaType: "string",
};

/**
 * Validation keywords that constrain only one kind of value, with that kind; each needs a `type`
 * that includes it, because zod treats a schema without `type` as "accept anything".
 */
export const TYPED_KEYWORDS: Readonly<Record<string, "object" | "array" | "string" | "number">> = {
  properties: "object",
  required: "object",
  additionalProperties: "object",
  items: "array",
  minItems: "array",
  maxItems: "array",
  minLength: "string",
  maxLength: "string",
  minimum: "number",
  maximum: "number",
  exclusiveMinimum: "number",
  exclusiveMaximum: "number",
  multipleOf: "number",
  pattern: "string",
  uniqueItems: "array",
  prefixItems: "array",
  contains: "array",
  minContains: "array",
  maxContains: "array",
  propertyNames: "object",
  minProperties: "object",
  maxProperties: "object",
  dependentRequired: "object",
};

/** Validation keywords that apply to any value. */
export const GENERAL_KEYWORDS: readonly string[] = [
  "type",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "if",
  "then",
  "else",
  "$ref",
];

/** Keywords that only hold subschemas for `$ref` to point at; allowed at the root alone. */
export const DEFINITION_KEYWORDS: readonly string[] = ["$defs", "definitions"];

/** True when `keyword` is an annotation of {@link ANNOTATION_KEYWORDS}. */
export function isAnnotationKeyword(keyword: string): boolean {
  return Object.hasOwn(ANNOTATION_KEYWORDS, keyword);
}

/** True when `keyword` restricts which values a schema accepts (as opposed to annotating it). */
export function isValidationKeyword(keyword: string): boolean {
  return Object.hasOwn(TYPED_KEYWORDS, keyword) || GENERAL_KEYWORDS.includes(keyword);
}
