import type { JsonObject, JsonValue } from "./canonical-json.js";
import { GENERAL_KEYWORDS, TYPED_KEYWORDS } from "./json-schema-keywords.js";

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
  // Most inputs hold no null at all: nothing to remove, and the copy would equal the input.
  return isPlainWithoutNull(input, 0) ? input : stripNode(parameters, input);
}

// Past this depth the input takes the copying path (the executor refuses deeper inputs anyway).
const MAX_SCAN_DEPTH = 64;

/**
 * Whether `value` is JSON data without any null: primitives, arrays, and ordinary objects (prototype
 * `Object.prototype`) without an own `__proto__` member. For such a value `stripNode` would build an
 * ordinary copy with the same members, so the validator may as well see the value itself.
 */
function isPlainWithoutNull(value: unknown, depth: number): boolean {
  if (value === null) return false;
  if (typeof value !== "object") return true;
  if (depth >= MAX_SCAN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isPlainWithoutNull(item, depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || key === "__proto__") return false;
    if (!isPlainWithoutNull((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

class StrictIncompatible extends Error {}

/**
 * Keywords the strict variant cannot vouch for: subschemas it does not rewrite, and object keywords
 * that count or depend on which keys are present, since the variant makes every property present
 * (optional ones as null) and the nulls become "absent" again before validation.
 */
const UNHANDLED_KEYWORDS = Object.freeze([
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "$ref",
  "$defs",
  "definitions",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "prefixItems",
  "contains",
  "patternProperties",
  "propertyNames",
  "dependentSchemas",
  "unevaluatedProperties",
  "unevaluatedItems",
]);

function strictNode(schema: JsonValue, path: string): JsonValue {
  if (!isObject(schema)) return schema;
  const unhandled = UNHANDLED_KEYWORDS.find((keyword) => schema[keyword] !== undefined);
  if (unhandled)
    throw new StrictIncompatible(`${path} uses "${unhandled}", which the strict variant cannot rewrite`);
  if (Array.isArray(schema.items))
    throw new StrictIncompatible(`${path} is a tuple, which strict mode cannot express`);
  const result: JsonObject = { ...schema };
  if (isObject(schema.properties) || schema.type === "object") {
    const properties = isObject(schema.properties) ? schema.properties : {};
    closeObject(schema, Object.keys(properties).length, path);
    const required = new Set(stringArray(schema.required));
    const strictProperties: JsonObject = {};
    for (const [key, property] of Object.entries(properties)) {
      const strict = strictNode(property, `${path}/properties/${key}`);
      define(strictProperties, key, required.has(key) ? strict : nullable(strict));
    }
    result.properties = strictProperties;
    result.required = Object.keys(properties);
    result.additionalProperties = false;
  }
  if (schema.items !== undefined) result.items = strictNode(schema.items, `${path}/items`);
  if (schema.anyOf !== undefined && schema.oneOf !== undefined) {
    throw new StrictIncompatible(`${path} has both anyOf and oneOf, which strict mode cannot express`);
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    assertStrippable(branches, path);
    // Strict mode has no oneOf; the model is told anyOf, and the local validator still enforces oneOf.
    delete result[keyword];
    result.anyOf = branches.map((branch, index) => strictNode(branch, `${path}/${keyword}/${index}`));
  }
  return result;
}

/**
 * Closing an object only stops the model from sending undeclared keys, which the local validator
 * would still accept. That is lossless unless the extra keys are the point: a typed map, or a
 * free-form nested object with nothing declared (the root with no properties takes no arguments).
 */
function closeObject(schema: JsonObject, declared: number, path: string): void {
  const additional = schema.additionalProperties;
  if (additional === undefined || additional === false) return;
  if (!acceptsAnything(additional)) {
    throw new StrictIncompatible(
      `${path} allows additional properties of a given schema, which strict mode cannot express`,
    );
  }
  if (declared === 0 && path !== "#") {
    throw new StrictIncompatible(`${path} is a free-form object, which strict mode cannot express`);
  }
}

/**
 * {@link removeStrictNulls} can tell which union branch a value belongs to only when a single branch
 * has that shape; otherwise the nulls it should remove would reach the validator, so say so here.
 */
function assertStrippable(branches: JsonValue[], path: string): void {
  const objects = branches.filter(isObjectBranch);
  const arrays = branches.filter(isArrayBranch);
  if (
    (objects.length > 1 && objects.some(hasOptionalProperty)) ||
    (arrays.length > 1 && arrays.some(hasOptionalProperty))
  ) {
    throw new StrictIncompatible(
      `${path} is a union of several shapes with optional properties, whose nulls could not be mapped back to absent`,
    );
  }
}

function nullable(schema: JsonValue): JsonValue {
  if (schema === false) return { type: "null" };
  if (!isObject(schema) || acceptsNull(schema)) return schema;
  if (typeof schema.type === "string" && schema.anyOf === undefined) {
    const result: JsonObject = { ...schema, type: [schema.type, "null"] };
    if (Array.isArray(schema.enum)) result.enum = [...schema.enum, null];
    if (schema.const !== undefined) {
      // A const would still forbid the null the model is told it may send.
      delete result.const;
      result.enum = [schema.const, null];
    }
    return result;
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  return { anyOf: [schema, { type: "null" }] };
}

function stripNode(schema: JsonValue, value: unknown): unknown {
  if (!isObject(schema)) return value;
  const union = [schema.anyOf, schema.oneOf].find(Array.isArray);
  if (union) {
    // Only an unambiguous union (a single branch of the value's shape) says which properties are optional.
    const candidates = union.filter(
      Array.isArray(value) ? isArrayBranch : isObject(value) ? isObjectBranch : () => false,
    );
    return candidates.length === 1 ? stripNode(candidates[0] as JsonValue, value) : value;
  }
  if (Array.isArray(value)) {
    return schema.items === undefined
      ? value
      : value.map((item) => stripNode(schema.items as JsonValue, item));
  }
  if (!isObject(value) || !isObject(schema.properties)) return value;
  const properties = schema.properties;
  const required = new Set(stringArray(schema.required));
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const property = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (property === undefined) {
      define(result, key, item);
    } else if (item === null && !required.has(key) && !acceptsNull(property)) {
      // The strict variant told the model to send null for "absent"; honour that, nothing more.
    } else {
      define(result, key, stripNode(property, item));
    }
  }
  return result;
}

/**
 * Sets an own data property; plain assignment of a `__proto__` key would replace the prototype
 * instead, and the validator would then read the attacker's object as inherited properties.
 */
function define(target: Record<string, unknown>, key: string, value: unknown): void {
  // Only that key needs defineProperty, which is far slower than an assignment.
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
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

/** True for a schema without any value keyword: `true`, `{}`, or annotations only. */
function acceptsAnything(schema: JsonValue): boolean {
  return (
    schema === true || (isObject(schema) && Object.keys(schema).every((key) => !ASSERTION_KEYWORDS.has(key)))
  );
}

function hasOptionalProperty(schema: JsonValue): boolean {
  if (Array.isArray(schema)) return schema.some(hasOptionalProperty);
  if (!isObject(schema)) return false;
  const children: (JsonValue | undefined)[] = [schema.items, schema.anyOf, schema.oneOf];
  if (isObject(schema.properties)) {
    const required = new Set(stringArray(schema.required));
    if (Object.keys(schema.properties).some((key) => !required.has(key))) return true;
    children.push(...Object.values(schema.properties));
  }
  return children.some((child) => child !== undefined && hasOptionalProperty(child));
}

function isObjectBranch(branch: JsonValue): boolean {
  return isObject(branch) && isObject(branch.properties);
}

function isArrayBranch(branch: JsonValue): boolean {
  return isObject(branch) && branch.items !== undefined;
}

/**
 * Keywords that restrict which values a schema accepts, whatever their type (the rest are
 * annotations): the general ones, and `not`, which no remote schema may use but a local one can.
 */
const VALUE_KEYWORDS: ReadonlySet<string> = new Set([...GENERAL_KEYWORDS, "not"]);

/**
 * Every keyword that can reject a value; a schema with none of them accepts anything. `format` is
 * among them: remote schemas only annotate with it, but a local tool's validator may assert it.
 */
const ASSERTION_KEYWORDS: ReadonlySet<string> = new Set([
  ...VALUE_KEYWORDS,
  ...UNHANDLED_KEYWORDS,
  ...Object.keys(TYPED_KEYWORDS),
  "format",
]);

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringArray(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}
