import { describeValue, isRecord } from "../records.js";
import { childPointer, parseLocalPointer, ROOT_POINTER } from "./json-pointer.js";
import {
  ANNOTATION_KEYWORDS,
  DEFINITION_KEYWORDS,
  isAnnotation,
  isValidationKeyword,
  JSON_TYPES,
  type JsonType,
  TYPED_KEYWORDS,
} from "./keywords.js";

/** One reason a schema cannot be converted, located by the JSON pointer of the offending keyword's schema. */
export interface SchemaIssue {
  /** Pointer in URI fragment form, e.g. `#/properties/q`. */
  pointer: string;
  message: string;
}

/** Which side of a tool a schema describes; only the wording of the root rule differs. */
export type SchemaRole = "inputSchema" | "outputSchema";

/**
 * Walks a remote JSON Schema and lists every keyword, value or combination the converter does not
 * support; an empty list means the schema converts exactly. The walk covers every place a subschema
 * can sit (properties, items, additionalProperties, anyOf/oneOf branches, `$defs`, `definitions`).
 */
export function checkJsonSchema(schema: unknown, role: SchemaRole = "inputSchema"): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  if (!isRecord(schema)) {
    issues.push({
      pointer: ROOT_POINTER,
      message: `${role} must be a JSON object with "type": "object", got ${describeValue(schema)}`,
    });
    return issues;
  }
  if (schema.type !== "object") {
    issues.push({
      pointer: ROOT_POINTER,
      message: `${role} must have "type": "object" at its root, got ${schema.type === undefined ? "no type" : JSON.stringify(schema.type)}`,
    });
  }
  checkNode(schema, ROOT_POINTER, { isRoot: true, inOneOf: false }, issues);
  return issues;
}

/** Where a node sits, as far as the rules care. */
interface Position {
  isRoot: boolean;
  /** Inside a `oneOf` branch, where a stricter branch makes the whole union looser. */
  inOneOf: boolean;
}

const NESTED: Position = { isRoot: false, inOneOf: false };

function checkNode(node: unknown, pointer: string, position: Position, issues: SchemaIssue[]): void {
  const report = (message: string): void => {
    issues.push({ pointer, message });
  };
  if (typeof node === "boolean") {
    report(`boolean schemas are supported only as the value of "additionalProperties"`);
    return;
  }
  if (!isRecord(node)) {
    report(`a schema must be a JSON object, got ${describeValue(node)}`);
    return;
  }
  const types = checkType(node.type, report);
  const isLiteral = node.enum !== undefined || node.const !== undefined;
  if (
    position.inOneOf &&
    !isLiteral &&
    types?.has("integer") &&
    !types.has("number") &&
    !hasSafeIntegerBounds(node)
  ) {
    // zod rejects integers beyond ±(2^53 - 1); inside oneOf that can make another branch the only match.
    // (An enum or const becomes a literal, which zod compares without any integer check.)
    report(
      `an "integer" inside "oneOf" needs "minimum" and "maximum" within ±${Number.MAX_SAFE_INTEGER}, which zod enforces anyway`,
    );
  }
  for (const [keyword, value] of Object.entries(node)) {
    if (isAnnotation(keyword)) {
      checkAnnotation(keyword, value, report);
    } else if (keyword === "$schema") {
      if (!position.isRoot) report(`keyword "$schema" is supported only at the root`);
      else if (typeof value !== "string") report(`"$schema" must be a string`);
    } else if (DEFINITION_KEYWORDS.includes(keyword)) {
      if (!position.isRoot) report(`keyword "${keyword}" is supported only at the root`);
      else checkSchemaMap(value, childPointer(pointer, keyword), keyword, NESTED, issues, report);
    } else if (Object.hasOwn(TYPED_KEYWORDS, keyword)) {
      checkTypedKeyword(node, keyword, value, pointer, types, position, issues, report);
    } else if (keyword === "enum" || keyword === "const") {
      checkLiterals(node, keyword, value, types, report);
    } else if (keyword === "anyOf" || keyword === "oneOf") {
      checkBranches(node, keyword, value, pointer, position, issues, report);
    } else if (keyword === "$ref") {
      checkRef(node, value, report);
    } else if (keyword !== "type") {
      report(`keyword ${JSON.stringify(keyword)} is not supported`);
    }
  }
}

function checkType(type: unknown, report: (message: string) => void): ReadonlySet<JsonType> | undefined {
  if (type === undefined) return undefined;
  const names = Array.isArray(type) ? type : [type];
  const known = names.filter((name): name is JsonType => JSON_TYPES.includes(name as JsonType));
  if (names.length === 0 || known.length !== names.length || new Set(known).size !== known.length) {
    report(`"type" must be one of ${JSON_TYPES.join(", ")} or a non-empty array of distinct ones`);
  }
  return new Set(known);
}

function checkAnnotation(keyword: string, value: unknown, report: (message: string) => void): void {
  const expected = ANNOTATION_KEYWORDS[keyword];
  const fits =
    expected === "any" ||
    (expected === "array" ? Array.isArray(value) : typeof value === expected && value !== null);
  if (!fits) report(`annotation "${keyword}" must be ${expected === "array" ? "an array" : `a ${expected}`}`);
}

function checkTypedKeyword(
  node: Record<string, unknown>,
  keyword: string,
  value: unknown,
  pointer: string,
  types: ReadonlySet<JsonType> | undefined,
  position: Position,
  issues: SchemaIssue[],
  report: (message: string) => void,
): void {
  const nested: Position = { isRoot: false, inOneOf: position.inOneOf };
  const kind = TYPED_KEYWORDS[keyword];
  const applies =
    kind === "number" ? types?.has("number") || types?.has("integer") : types?.has(kind as JsonType);
  if (!applies) {
    // Without a matching type zod drops the keyword, so the model would be told a rule nobody checks.
    report(`keyword "${keyword}" needs "type" to include "${kind}"`);
  }
  switch (keyword) {
    case "properties":
      checkSchemaMap(value, childPointer(pointer, keyword), keyword, nested, issues, report);
      return;
    case "required":
      checkRequired(node, value, report);
      return;
    case "additionalProperties":
      if (typeof value !== "boolean") checkNode(value, childPointer(pointer, keyword), nested, issues);
      return;
    case "items":
      if (Array.isArray(value)) report(`the array form of "items" (a tuple) is not supported`);
      else checkNode(value, childPointer(pointer, keyword), nested, issues);
      return;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      if (typeof value === "boolean") report(`the boolean form of "${keyword}" (draft-04) is not supported`);
      else if (typeof value !== "number" || !Number.isFinite(value)) report(`"${keyword}" must be a number`);
      return;
    default:
      if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
        report(`"${keyword}" must be a non-negative integer`);
      }
  }
}

function checkSchemaMap(
  value: unknown,
  pointer: string,
  keyword: string,
  position: Position,
  issues: SchemaIssue[],
  report: (message: string) => void,
): void {
  if (!isRecord(value)) {
    report(`"${keyword}" must be an object of schemas`);
    return;
  }
  for (const [name, subschema] of Object.entries(value)) {
    if (name === "__proto__") {
      // zod's toJSONSchema drops such a property, so the model would never be told about it.
      issues.push({
        pointer: childPointer(pointer, name),
        message: `a property named "__proto__" is not supported`,
      });
      continue;
    }
    checkNode(subschema, childPointer(pointer, name), position, issues);
  }
}

function checkRequired(
  node: Record<string, unknown>,
  value: unknown,
  report: (message: string) => void,
): void {
  if (!Array.isArray(value) || !value.every((name) => typeof name === "string")) {
    report(`"required" must be an array of property names`);
    return;
  }
  if (new Set(value).size !== value.length) report(`"required" lists a property twice`);
  const declared = isRecord(node.properties) ? node.properties : {};
  for (const name of value) {
    // zod enforces only required names that are also declared; an undeclared one would be ignored.
    if (!Object.hasOwn(declared, name)) {
      report(`"required" lists ${JSON.stringify(name)}, which "properties" does not declare`);
    }
  }
}

function checkLiterals(
  node: Record<string, unknown>,
  keyword: "enum" | "const",
  value: unknown,
  types: ReadonlySet<JsonType> | undefined,
  report: (message: string) => void,
): void {
  const values = keyword === "enum" ? value : [value];
  if (!Array.isArray(values) || values.length === 0) {
    report(`"enum" must be a non-empty array`);
    return;
  }
  if (!values.every(isPrimitive)) {
    // zod compares enum and const values by identity, so an object or array would never match.
    report(`"${keyword}" values must be strings, numbers, booleans or null`);
  }
  if (keyword === "enum" && node.const !== undefined) report(`"enum" next to "const" is not supported`);
  for (const sibling of Object.keys(node)) {
    // zod turns enum/const into literals and drops every other validation keyword beside them.
    if (isValidationKeyword(sibling) && sibling !== "type" && sibling !== "enum" && sibling !== "const") {
      report(`keyword "${sibling}" next to "${keyword}" is not supported`);
    }
  }
  if (types !== undefined && !values.every((item) => isPrimitive(item) && matchesSomeType(item, types))) {
    report(`every "${keyword}" value must match "type"`);
  }
}

function checkBranches(
  node: Record<string, unknown>,
  keyword: "anyOf" | "oneOf",
  value: unknown,
  pointer: string,
  position: Position,
  issues: SchemaIssue[],
  report: (message: string) => void,
): void {
  if (!Array.isArray(value) || value.length === 0) {
    report(`"${keyword}" must be a non-empty array of schemas`);
    return;
  }
  for (const sibling of Object.keys(node)) {
    // zod would intersect the siblings with the union and reshape the result; keep unions pure.
    if (sibling !== keyword && isValidationKeyword(sibling)) {
      report(`keyword "${sibling}" next to "${keyword}" is not supported; move it into each branch`);
    }
  }
  const branchPosition: Position = { isRoot: false, inOneOf: position.inOneOf || keyword === "oneOf" };
  value.forEach((branch, index) => {
    checkNode(branch, childPointer(childPointer(pointer, keyword), index), branchPosition, issues);
  });
}

function checkRef(node: Record<string, unknown>, value: unknown, report: (message: string) => void): void {
  const tokens = typeof value === "string" ? parseLocalPointer(value) : undefined;
  const isDefinition =
    tokens !== undefined && tokens.length === 2 && DEFINITION_KEYWORDS.includes(tokens[0] as string);
  if (!isDefinition) {
    report(
      `"$ref" ${JSON.stringify(value)} is not supported; only "#/$defs/<name>" and "#/definitions/<name>" are`,
    );
  }
  for (const sibling of Object.keys(node)) {
    // draft-07 ignores a $ref's siblings and 2020-12 applies them: allow only what means the same in both.
    if (sibling !== "$ref" && isValidationKeyword(sibling)) {
      report(`keyword "${sibling}" next to "$ref" is not supported`);
    }
  }
}

function hasSafeIntegerBounds(node: Record<string, unknown>): boolean {
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
