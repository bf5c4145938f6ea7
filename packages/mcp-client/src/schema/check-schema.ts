import {
  DEFINITION_KEYWORDS,
  isAnnotationKeyword,
  isValidationKeyword,
  type JsonType,
  TYPED_KEYWORDS,
} from "@agent/tools";
import { describeValue, isRecord } from "../records.js";
import {
  checkAnchor,
  checkAnnotation,
  checkBound,
  checkCount,
  checkDependentRequired,
  checkDialect,
  checkLiterals,
  checkMultipleOf,
  checkPattern,
  checkRef,
  checkRequired,
  checkType,
  type Dialect,
  dialectOf,
  hasSafeIntegerBounds,
  type Report,
} from "./check-values.js";
import { childPointer, ROOT_POINTER } from "./json-pointer.js";

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
 * can sit (properties, items, prefixItems, additionalProperties, contains, propertyNames,
 * anyOf/oneOf/allOf branches, if/then/else, `$defs`, `definitions`).
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
  const dialect = dialectOf(schema.$schema);
  const root: Position = {
    isRoot: true,
    inOneOf: false,
    implicitString: false,
    dialect,
    objectProperties: undefined,
    isDefinition: false,
  };
  checkNode(schema, ROOT_POINTER, root, issues);
  return issues;
}

/** Where a node sits, as far as the rules care. */
interface Position {
  isRoot: boolean;
  /**
   * Where a stricter subschema makes the whole looser: inside a `oneOf` branch, or inside a `contains`
   * bounded by `maxContains`. zod's integers are stricter than JSON Schema's (±(2^53 - 1)).
   */
  inOneOf: boolean;
  /** The root of a `propertyNames` subschema: it only ever sees strings, so `type` may be left out. */
  implicitString: boolean;
  /** The dialect the root's `$schema` names, if any. */
  dialect: Dialect | undefined;
  /**
   * Inside an applicator (allOf/anyOf/oneOf/if/then/else) of a schema that only admits objects: the
   * properties that schema and its enclosing ones declare. A branch there sees only objects, so its
   * object keywords apply without a `type`, and its `required` may name these properties.
   */
  objectProperties: Readonly<Record<string, unknown>> | undefined;
  /** A direct entry of `$defs`/`definitions`, where `$anchor` may name it (the name is never resolved). */
  isDefinition: boolean;
}

function checkNode(node: unknown, pointer: string, position: Position, issues: SchemaIssue[]): void {
  const report: Report = (message) => {
    issues.push({ pointer, message });
  };
  if (typeof node === "boolean") {
    report(
      `boolean schemas are supported only as the value of "additionalProperties", and of "items" beside "prefixItems"`,
    );
    return;
  }
  if (!isRecord(node)) {
    report(`a schema must be a JSON object, got ${describeValue(node)}`);
    return;
  }
  const types = checkType(node.type, report) ?? implicitTypes(position);
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
      `an "integer" inside "oneOf" or a bounded "contains" needs "minimum" and "maximum" within ±${Number.MAX_SAFE_INTEGER}, which zod enforces anyway`,
    );
  }
  const nested: Position = {
    ...position,
    isRoot: false,
    implicitString: false,
    objectProperties: undefined,
    isDefinition: false,
  };
  const applied: Position = { ...nested, objectProperties: appliedProperties(node, types, position) };
  for (const [keyword, value] of Object.entries(node)) {
    if (isAnnotationKeyword(keyword)) {
      checkAnnotation(keyword, value, report);
    } else if (keyword === "$schema") {
      if (!position.isRoot) report(`keyword "$schema" is supported only at the root`);
      else if (typeof value !== "string") report(`"$schema" must be a string`);
    } else if (DEFINITION_KEYWORDS.includes(keyword)) {
      if (!position.isRoot) report(`keyword "${keyword}" is supported only at the root`);
      else
        checkSchemaMap(
          value,
          childPointer(pointer, keyword),
          keyword,
          { ...nested, inOneOf: false, isDefinition: true },
          issues,
          report,
        );
    } else if (Object.hasOwn(TYPED_KEYWORDS, keyword)) {
      checkTypedKeyword(
        node,
        keyword,
        value,
        pointer,
        types,
        nested,
        issues,
        report,
        position.objectProperties,
      );
    } else if (keyword === "enum" || keyword === "const") {
      checkDialect(keyword, position.dialect, report);
      checkLiterals(node, keyword, value, types, report);
    } else if (keyword === "anyOf" || keyword === "oneOf") {
      checkBranches(node, keyword, value, pointer, applied, issues, report);
    } else if (keyword === "allOf") {
      checkSchemaList(value, childPointer(pointer, keyword), keyword, applied, issues, report);
    } else if (keyword === "if" || keyword === "then" || keyword === "else") {
      checkConditional(node, keyword, value, childPointer(pointer, keyword), applied, issues, report);
    } else if (keyword === "$anchor") {
      checkAnchor(value, position.isDefinition, report);
    } else if (keyword === "$ref") {
      checkRef(node, value, report);
    } else if (keyword !== "type") {
      report(`keyword ${JSON.stringify(keyword)} is not supported`);
    }
  }
}

function checkTypedKeyword(
  node: Record<string, unknown>,
  keyword: string,
  value: unknown,
  pointer: string,
  types: ReadonlySet<JsonType> | undefined,
  nested: Position,
  issues: SchemaIssue[],
  report: Report,
  inheritedProperties: Readonly<Record<string, unknown>> | undefined,
): void {
  const kind = TYPED_KEYWORDS[keyword];
  const applies =
    kind === "number" ? types?.has("number") || types?.has("integer") : types?.has(kind as JsonType);
  if (!applies) {
    // A keyword without a matching type would be checked on nothing: the model would be told a rule nobody checks.
    report(`keyword "${keyword}" needs "type" to include "${kind}"`);
  }
  checkDialect(keyword, nested.dialect, report);
  const at = childPointer(pointer, keyword);
  switch (keyword) {
    case "properties":
      checkSchemaMap(value, at, keyword, nested, issues, report);
      return;
    case "required":
      checkRequired(node, value, report, inheritedProperties);
      return;
    case "additionalProperties":
      if (typeof value !== "boolean") checkNode(value, at, nested, issues);
      return;
    case "items":
      if (Array.isArray(value))
        report(`the array form of "items" (a draft-07 tuple) is not supported; use "prefixItems"`);
      else if (typeof value !== "boolean" || node.prefixItems === undefined)
        checkNode(value, at, nested, issues);
      return;
    case "prefixItems":
      checkSchemaList(value, at, keyword, nested, issues, report);
      return;
    case "contains":
      checkNode(value, at, { ...nested, inOneOf: nested.inOneOf || node.maxContains !== undefined }, issues);
      return;
    case "propertyNames":
      checkNode(value, at, { ...nested, implicitString: true }, issues);
      return;
    case "minContains":
    case "maxContains":
      checkCount(keyword, value, report);
      if (node.contains === undefined) report(`keyword "${keyword}" needs "contains" beside it`);
      return;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      checkBound(node, keyword, value, nested.dialect, report);
      return;
    case "multipleOf":
      checkMultipleOf(value, report);
      return;
    case "pattern":
      checkPattern(value, report);
      return;
    case "uniqueItems":
      if (typeof value !== "boolean") report(`"uniqueItems" must be a boolean`);
      return;
    case "dependentRequired":
      checkDependentRequired(value, report);
      return;
    default:
      checkCount(keyword, value, report);
  }
}

function checkSchemaMap(
  value: unknown,
  pointer: string,
  keyword: string,
  position: Position,
  issues: SchemaIssue[],
  report: Report,
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

function checkSchemaList(
  value: unknown,
  pointer: string,
  keyword: string,
  position: Position,
  issues: SchemaIssue[],
  report: Report,
): void {
  if (!Array.isArray(value) || value.length === 0) {
    report(`"${keyword}" must be a non-empty array of schemas`);
    return;
  }
  value.forEach((subschema, index) => {
    checkNode(subschema, childPointer(pointer, index), position, issues);
  });
}

function checkBranches(
  node: Record<string, unknown>,
  keyword: "anyOf" | "oneOf",
  value: unknown,
  pointer: string,
  nested: Position,
  issues: SchemaIssue[],
  report: Report,
): void {
  for (const sibling of Object.keys(node)) {
    // Keep unions pure: a sibling constraint belongs in each branch, where it is shown and checked.
    if (sibling !== keyword && isValidationKeyword(sibling)) {
      report(`keyword "${sibling}" next to "${keyword}" is not supported; move it into each branch`);
    }
  }
  const branches = { ...nested, inOneOf: nested.inOneOf || keyword === "oneOf" };
  checkSchemaList(value, childPointer(pointer, keyword), keyword, branches, issues, report);
}

/** The types a node without `type` is known to see: strings under `propertyNames`, objects in an object's applicator. */
function implicitTypes(position: Position): ReadonlySet<JsonType> | undefined {
  if (position.implicitString) return new Set<JsonType>(["string"]);
  return position.objectProperties ? new Set<JsonType>(["object"]) : undefined;
}

/**
 * The properties an applicator branch of `node` may name: when `node` admits only objects, its own
 * declared properties and those of the objects it applies to; otherwise none (a branch may see anything).
 */
function appliedProperties(
  node: Record<string, unknown>,
  types: ReadonlySet<JsonType> | undefined,
  position: Position,
): Readonly<Record<string, unknown>> | undefined {
  if (types?.size !== 1 || !types.has("object")) return undefined;
  return { ...position.objectProperties, ...(isRecord(node.properties) ? node.properties : {}) };
}

/**
 * `if`/`then`/`else`: each a schema. `then` or `else` without `if` means nothing in JSON Schema, so it
 * is refused rather than shown. A stricter `if` would send a value to the other branch, so `if` is
 * held to the rules of a `oneOf` branch.
 */
function checkConditional(
  node: Record<string, unknown>,
  keyword: "if" | "then" | "else",
  value: unknown,
  pointer: string,
  applied: Position,
  issues: SchemaIssue[],
  report: Report,
): void {
  if (keyword !== "if" && node.if === undefined) {
    report(`keyword "${keyword}" needs "if" beside it`);
    return;
  }
  checkNode(value, pointer, keyword === "if" ? { ...applied, inOneOf: true } : applied, issues);
}
