/**
 * The checks of one keyword's value that need no recursion into subschemas: types, annotations,
 * literals, `required`, `$ref`, numbers, counts, `pattern`, `dependentRequired`, and which keywords a
 * declared dialect (`$schema`) has at all.
 */

import { ANNOTATION_KEYWORDS, isValidationKeyword, JSON_TYPES, type JsonType } from "@agent/tools";
import { isRecord } from "../records.js";
import { compilePattern } from "./ecma-pattern.js";
import { parseLocalPointer } from "./json-pointer.js";

/** Reports one problem at the pointer of the schema being checked. */
export type Report = (message: string) => void;

/** The JSON Schema drafts a root `$schema` can name; an unknown or absent one is `undefined`. */
export type Dialect = "draft-04" | "draft-06" | "draft-07" | "2019-09" | "2020-12";

const DIALECTS: Readonly<Record<string, Dialect>> = {
  "http://json-schema.org/draft-04/schema#": "draft-04",
  "http://json-schema.org/draft-04/schema": "draft-04",
  "http://json-schema.org/draft-06/schema#": "draft-06",
  "http://json-schema.org/draft-06/schema": "draft-06",
  "http://json-schema.org/draft-07/schema#": "draft-07",
  "http://json-schema.org/draft-07/schema": "draft-07",
  "https://json-schema.org/draft/2019-09/schema": "2019-09",
  "https://json-schema.org/draft/2020-12/schema": "2020-12",
};

const DIALECT_ORDER: readonly Dialect[] = ["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"];

/** The draft that introduced each keyword younger than draft-04; older dialects ignore them. */
const INTRODUCED_IN: Readonly<Record<string, Dialect>> = {
  const: "draft-06",
  contains: "draft-06",
  propertyNames: "draft-06",
  dependentRequired: "2019-09",
  minContains: "2019-09",
  maxContains: "2019-09",
  prefixItems: "2020-12",
};

/** The dialect a root `$schema` names, or undefined when it is absent or not one of the drafts. */
export function dialectOf(schema: unknown): Dialect | undefined {
  return typeof schema === "string" && Object.hasOwn(DIALECTS, schema) ? DIALECTS[schema] : undefined;
}

/**
 * Refuses a keyword the declared dialect does not have: its validators would ignore it (and Ajv
 * refuses the schema), so enforcing it locally would not be what the server declared.
 */
export function checkDialect(keyword: string, dialect: Dialect | undefined, report: Report): void {
  const introduced = INTRODUCED_IN[keyword];
  if (dialect === undefined || introduced === undefined) return;
  if (DIALECT_ORDER.indexOf(dialect) < DIALECT_ORDER.indexOf(introduced)) {
    report(`keyword "${keyword}" is not part of the schema's dialect (${dialect})`);
  }
}

/** Checks `type` and returns the named types (undefined when there is no `type`). */
export function checkType(type: unknown, report: Report): ReadonlySet<JsonType> | undefined {
  if (type === undefined) return undefined;
  const names = Array.isArray(type) ? type : [type];
  const known = names.filter((name): name is JsonType => JSON_TYPES.includes(name as JsonType));
  if (names.length === 0 || known.length !== names.length || new Set(known).size !== known.length) {
    report(`"type" must be one of ${JSON_TYPES.join(", ")} or a non-empty array of distinct ones`);
  }
  return new Set(known);
}

/** Checks that an annotation's value has the shape its keyword calls for. */
export function checkAnnotation(keyword: string, value: unknown, report: Report): void {
  const expected = ANNOTATION_KEYWORDS[keyword];
  const fits =
    expected === "any" ||
    (expected === "array" ? Array.isArray(value) : typeof value === expected && value !== null);
  if (!fits) report(`annotation "${keyword}" must be ${expected === "array" ? "an array" : `a ${expected}`}`);
}

/**
 * Checks `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`: numbers, or for the exclusive
 * ones draft-04's boolean form, which modifies the sibling bound and exists in draft-04 alone.
 */
export function checkBound(
  node: Record<string, unknown>,
  keyword: string,
  value: unknown,
  dialect: Dialect | undefined,
  report: Report,
): void {
  if (typeof value === "boolean") {
    const bound = keyword === "exclusiveMinimum" ? "minimum" : "maximum";
    if (dialect !== undefined && dialect !== "draft-04") {
      report(
        `the boolean form of "${keyword}" exists in draft-04 only, not in the schema's dialect (${dialect})`,
      );
    } else if (typeof node[bound] !== "number") {
      report(`the boolean form of "${keyword}" (draft-04) needs a numeric "${bound}" beside it`);
    }
    return;
  }
  if (typeof value !== "number" || !Number.isFinite(value)) {
    report(`"${keyword}" must be a number`);
  } else if (dialect === "draft-04" && keyword.startsWith("exclusive")) {
    report(`"${keyword}" must be a boolean in draft-04`);
  }
}

/** Checks `multipleOf`: a finite number greater than zero. */
export function checkMultipleOf(value: unknown, report: Report): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    report(`"multipleOf" must be a number greater than 0`);
  }
}

/** Checks `pattern`: a string the linear-time engine matches exactly as ECMA-262 (`u` flag) does. */
export function checkPattern(value: unknown, report: Report): void {
  if (typeof value !== "string") {
    report(`"pattern" must be a string`);
    return;
  }
  const compiled = compilePattern(value);
  if (!compiled.ok) report(`"pattern" ${compiled.reason}`);
}

/** Checks a count keyword (`minLength`, `maxItems`, `minProperties`, ...): a non-negative integer. */
export function checkCount(keyword: string, value: unknown, report: Report): void {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    report(`"${keyword}" must be a non-negative integer`);
  }
}

/** Checks `required`: distinct names, each declared in `properties` (zod ignores undeclared ones). */
export function checkRequired(
  node: Record<string, unknown>,
  value: unknown,
  report: Report,
  inheritedProperties: Readonly<Record<string, unknown>> = {},
): void {
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
    report(`"required" must be an array of property names`);
    return;
  }
  if (new Set(value).size !== value.length) report(`"required" lists a property twice`);
  const declared = isRecord(node.properties) ? node.properties : {};
  for (const name of value) {
    // In an object's applicator, the object's own "properties" count: the branch sees the same value.
    if (!Object.hasOwn(declared, name) && !Object.hasOwn(inheritedProperties, name)) {
      report(`"required" lists ${JSON.stringify(name)}, which "properties" does not declare`);
    }
  }
}

/** Checks `dependentRequired`: an object whose values are arrays of distinct property names. */
export function checkDependentRequired(value: unknown, report: Report): void {
  const valid =
    isRecord(value) &&
    Object.values(value).every(
      (names) =>
        Array.isArray(names) &&
        names.every((name) => typeof name === "string") &&
        new Set(names).size === names.length,
    );
  if (!valid) report(`"dependentRequired" must map property names to arrays of distinct property names`);
}

/** Checks `enum` and `const`: primitive values of the declared type, with no validation keyword beside them. */
export function checkLiterals(
  node: Record<string, unknown>,
  keyword: "enum" | "const",
  value: unknown,
  types: ReadonlySet<JsonType> | undefined,
  report: Report,
): void {
  const values = keyword === "enum" ? value : [value];
  if (!Array.isArray(values) || values.length === 0) {
    report(`"enum" must be a non-empty array`);
    return;
  }
  if (!values.every(isPrimitive)) {
    // Literals are compared by identity, so an object or array would never match.
    report(`"${keyword}" values must be strings, numbers, booleans or null`);
  }
  if (keyword === "enum" && node.const !== undefined) report(`"enum" next to "const" is not supported`);
  for (const sibling of Object.keys(node)) {
    // enum/const become literals, which carry no other validation keyword.
    if (isValidationKeyword(sibling) && sibling !== "type" && sibling !== "enum" && sibling !== "const") {
      report(`keyword "${sibling}" next to "${keyword}" is not supported`);
    }
  }
  if (types !== undefined && !values.every((item) => isPrimitive(item) && matchesSomeType(item, types))) {
    report(`every "${keyword}" value must match "type"`);
  }
}

/**
 * Checks a `$ref`: a JSON pointer into this schema (`#/$defs/…`, or `#/properties/…` as zod 3's
 * converter writes), with no validation keyword beside it. Inlining resolves it later.
 */
export function checkRef(node: Record<string, unknown>, value: unknown, report: Report): void {
  if (typeof value === "string" && /^#[A-Za-z_]/.test(value)) {
    report(
      `"$ref" ${JSON.stringify(value)} names an "$anchor", which is not resolved; use a JSON pointer such as "#/$defs/…"`,
    );
  } else if (typeof value !== "string" || parseLocalPointer(value) === undefined) {
    report(`"$ref" ${JSON.stringify(value)} is not supported; only references within the schema ("#/…") are`);
  }
  for (const sibling of Object.keys(node)) {
    // draft-07 ignores a $ref's siblings and 2020-12 applies them: allow only what means the same in both.
    if (sibling !== "$ref" && isValidationKeyword(sibling)) {
      report(`keyword "${sibling}" next to "$ref" is not supported`);
    }
  }
}

/** True when the node's integer bounds (inclusive or exclusive, in either draft's form) stay within ±(2^53 - 1). */
export function hasSafeIntegerBounds(node: Record<string, unknown>): boolean {
  const bound = (keyword: string): number | undefined =>
    typeof node[keyword] === "number" ? (node[keyword] as number) : undefined;
  const lower = Math.max(bound("minimum") ?? -Infinity, bound("exclusiveMinimum") ?? -Infinity);
  const upper = Math.min(bound("maximum") ?? Infinity, bound("exclusiveMaximum") ?? Infinity);
  return lower >= -Number.MAX_SAFE_INTEGER && upper <= Number.MAX_SAFE_INTEGER;
}

function matchesSomeType(value: string | number | boolean | null, types: ReadonlySet<JsonType>): boolean {
  if (value === null) return types.has("null");
  if (typeof value === "number")
    return types.has("number") || (types.has("integer") && Number.isInteger(value));
  return types.has(typeof value as JsonType);
}

function isPrimitive(value: unknown): value is string | number | boolean | null {
  return (
    value === null || typeof value === "string" || typeof value === "boolean" || typeof value === "number"
  );
}

/** The syntax of a plain-name fragment (JSON Schema 2020-12, section 8.2.2). */
const ANCHOR_NAME = /^[A-Za-z_][-A-Za-z0-9._]*$/;

/** `$anchor`: a name for a definition. No `$ref` may use it ({@link checkRef} refuses `#name`), so it changes nothing. */
export function checkAnchor(value: unknown, isDefinition: boolean, report: Report): void {
  if (!isDefinition) report(`keyword "$anchor" is supported only on a schema in "$defs" or "definitions"`);
  else if (typeof value !== "string" || !ANCHOR_NAME.test(value))
    report(`"$anchor" must be a name: a letter or "_", then letters, digits, "-", "_" or "."`);
}
