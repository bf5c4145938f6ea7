import type { JsonObject, JsonValue } from "./canonical-json.js";

/** The strict function-calling variant of a tool's parameters, or why the tool has none. */
export type StrictParameters =
  | { compatible: true; parameters: JsonObject }
  | { compatible: false; reason: string };

/**
 * Builds the variant of a JSON Schema that strict function calling accepts: every object closed
 * (`additionalProperties: false`), every property required, and each originally optional property
 * made nullable. It is model-facing only: the local validator keeps the original schema, and
 * {@link removeStrictNulls} maps a model's `null` for an optional field back to "absent".
 */
export function toStrictParameters(parameters: JsonObject): StrictParameters {
  try {
    return { compatible: true, parameters: strictNode(parameters, "#") as JsonObject };
  } catch (error) {
    if (error instanceof StrictIncompatible) return { compatible: false, reason: error.message };
    throw error;
  }
}

/**
 * Deletes the `null` values a strict-mode model sends for optional properties whose original schema
 * does not accept `null`, so that the original validator sees them as absent. Everything else is
 * left for the validator to judge; the input is not mutated.
 */
export function removeStrictNulls(parameters: JsonObject, input: unknown): unknown {
  return stripNode(parameters, input);
}

class StrictIncompatible extends Error {}

function strictNode(schema: JsonValue, path: string): JsonValue {
  if (!isObject(schema)) return schema;
  const result: JsonObject = { ...schema };
  if (isObject(schema.properties) || schema.type === "object") {
    const properties = isObject(schema.properties) ? schema.properties : {};
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
      throw new StrictIncompatible(`${path} allows additional properties, which strict mode cannot express`);
    }
    const required = new Set(stringArray(schema.required));
    const strictProperties: JsonObject = {};
    for (const [key, property] of Object.entries(properties)) {
      const strict = strictNode(property, `${path}/properties/${key}`);
      strictProperties[key] = required.has(key) ? strict : nullable(strict);
    }
    result.properties = strictProperties;
    result.required = Object.keys(properties);
    result.additionalProperties = false;
  }
  if (schema.items !== undefined) result.items = strictNode(schema.items, `${path}/items`);
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    // Strict mode has no oneOf; the model is told anyOf, and the local validator still enforces oneOf.
    delete result[keyword];
    result.anyOf = branches.map((branch, index) => strictNode(branch, `${path}/${keyword}/${index}`));
  }
  return result;
}

function nullable(schema: JsonValue): JsonValue {
  if (!isObject(schema) || acceptsNull(schema)) return schema;
  if (typeof schema.type === "string" && schema.anyOf === undefined) {
    const result: JsonObject = { ...schema, type: [schema.type, "null"] };
    if (Array.isArray(schema.enum)) result.enum = [...schema.enum, null];
    return result;
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  return { anyOf: [schema, { type: "null" }] };
}

function stripNode(schema: JsonValue, value: unknown): unknown {
  if (!isObject(schema)) return value;
  if (Array.isArray(value)) {
    return schema.items === undefined
      ? value
      : value.map((item) => stripNode(schema.items as JsonValue, item));
  }
  if (!isObject(value)) return value;
  const union = [schema.anyOf, schema.oneOf].find(Array.isArray);
  if (union) {
    // Only an unambiguous union (a single object branch) says which properties are optional.
    const objectBranches = union.filter((branch) => isObject(branch) && isObject(branch.properties));
    return objectBranches.length === 1 ? stripNode(objectBranches[0] as JsonValue, value) : value;
  }
  if (!isObject(schema.properties)) return value;
  const required = new Set(stringArray(schema.required));
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const property = schema.properties[key];
    if (property === undefined) {
      result[key] = item;
    } else if (item === null && !required.has(key) && !acceptsNull(property)) {
      // The strict variant told the model to send null for "absent"; honour that, nothing more.
    } else {
      result[key] = stripNode(property, item);
    }
  }
  return result;
}

function acceptsNull(schema: JsonValue): boolean {
  if (schema === true) return true;
  if (!isObject(schema)) return false;
  if (Object.keys(schema).every((key) => !VALUE_KEYWORDS.has(key))) return true;
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  if (schema.const === null) return true;
  return [schema.anyOf, schema.oneOf].some(
    (branches) => Array.isArray(branches) && branches.some(acceptsNull),
  );
}

/** Keywords that restrict which values a schema accepts (the rest are annotations). */
const VALUE_KEYWORDS = new Set(["type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref"]);

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringArray(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
