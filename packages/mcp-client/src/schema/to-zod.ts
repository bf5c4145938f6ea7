/**
 * The converter from a checked, ref-free JSON Schema to zod. It builds only what zod checks exactly
 * (types, properties, bounds, literals, unions) and adds checks of our own for the rest
 * (zod-guards.ts). What the model is shown is generated back from the result by `z.toJSONSchema`:
 * zod's own output for what zod checks, and metadata in zod's global registry for the keywords our
 * checks enforce and for the annotations, which nothing enforces. A subschema a check applies
 * (`allOf`, `contains`, `propertyNames`) is shown as `z.toJSONSchema` renders the very zod schema the
 * check runs, so description and validation keep one source everywhere.
 */

import { isAnnotationKeyword, JSON_TYPES, type JsonType } from "@agent/tools";
import { type ZodType, z } from "zod";
import { isRecord } from "../records.js";
import { compilePattern } from "./ecma-pattern.js";
import { ownPropertyValidator } from "./own-input.js";
import type { SchemaNode } from "./subschemas.js";
import {
  allOfGuard,
  arrayGuard,
  conditionalGuard,
  multipleOfGuard,
  objectGuard,
  patternGuard,
  requiredGuard,
} from "./zod-guards.js";

type Metadata = Record<string, unknown>;

/** A zod schema and what the model must be shown about it beyond what zod renders itself. */
interface Built {
  schema: ZodType;
  metadata: Metadata;
}

/**
 * Converts one node. `implicitType` is the one type a node without `type` is known to see: "string" in
 * a `propertyNames` subschema, "object" in an applicator branch of an object-only schema, so its
 * keywords apply without a `type` (the checks admit exactly these).
 */
export function nodeToZod(node: SchemaNode, implicitType?: JsonType): ZodType {
  const metadata: Metadata = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (isAnnotationKeyword(keyword)) metadata[keyword] = value;
  }
  const types = typesOf(node, implicitType);
  // A branch of an object-only schema sees only objects, as the checks assume.
  const applied = types.length === 1 && types[0] === "object" ? "object" : undefined;
  const branch = (subschema: SchemaNode): ZodType => nodeToZod(subschema, applied);
  let schema: ZodType;
  if (node.enum !== undefined) schema = enumSchema(node.enum as Primitive[]);
  else if (node.const !== undefined) schema = z.literal(node.const as Primitive);
  else if (Array.isArray(node.anyOf)) schema = z.union(node.anyOf.map(branch));
  else if (Array.isArray(node.oneOf)) schema = z.xor(node.oneOf.map(branch));
  else {
    if (types.length === 0) schema = z.any();
    else if (types.length === 1) {
      const built = typed(node, types[0] as JsonType);
      schema = built.schema;
      Object.assign(metadata, built.metadata);
    } else {
      schema = z.union(types.map((type) => registered(typed(node, type))));
    }
  }
  if (Array.isArray(node.allOf)) {
    const branches = node.allOf.map(branch);
    schema = schema.check(allOfGuard(branches.map(ownPropertyValidator)));
    metadata.allOf = branches.map(shown);
  }
  if (isRecord(node.if)) schema = conditional(schema, node, branch, metadata);
  return registered({ schema, metadata });
}

/** `if`/`then`/`else` beside the rest of a schema, checked by {@link conditionalGuard} and shown as converted. */
function conditional(
  schema: ZodType,
  node: SchemaNode,
  branch: (subschema: SchemaNode) => ZodType,
  metadata: Metadata,
): ZodType {
  const parts: Partial<Record<"if" | "then" | "else", ZodType>> = {};
  for (const keyword of ["if", "then", "else"] as const) {
    const subschema = node[keyword];
    if (!isRecord(subschema)) continue;
    const converted = branch(subschema);
    parts[keyword] = converted;
    metadata[keyword] = shown(converted);
  }
  const [test, then, otherwise] = [parts.if, parts.then, parts.else].map((part) =>
    part ? ownPropertyValidator(part) : undefined,
  );
  return schema.check(conditionalGuard(test as (value: unknown) => boolean, then, otherwise));
}

/** What the model is shown for `schema`: its JSON Schema as `defineTool` generates it, without `$schema`. */
function shown(schema: ZodType): Metadata {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "throw" });
  return rest;
}

function registered({ schema, metadata }: Built): ZodType {
  // Each schema here is a fresh instance, so its metadata can never reach another conversion.
  if (Object.keys(metadata).length > 0) z.globalRegistry.add(schema, metadata);
  return schema;
}

type Primitive = string | number | boolean | null;

function enumSchema(values: Primitive[]): ZodType {
  if (values.length === 1) return z.literal(values[0] as Primitive);
  if (values.every((value) => typeof value === "string")) return z.enum(values as [string, ...string[]]);
  return z.union(values.map((value) => z.literal(value)));
}

function typesOf(node: SchemaNode, implicitType: JsonType | undefined): JsonType[] {
  if (node.type === undefined) return implicitType ? [implicitType] : [];
  return (Array.isArray(node.type) ? node.type : [node.type]).filter((type): type is JsonType =>
    JSON_TYPES.includes(type as JsonType),
  );
}

function typed(node: SchemaNode, type: JsonType): Built {
  switch (type) {
    case "string":
      return stringSchema(node);
    case "number":
    case "integer":
      return numberSchema(node, type === "integer");
    case "boolean":
      return { schema: z.boolean(), metadata: {} };
    case "null":
      return { schema: z.null(), metadata: {} };
    case "object":
      return objectSchema(node);
    case "array":
      return arraySchema(node);
  }
}

function stringSchema(node: SchemaNode): Built {
  let schema = z.string();
  if (typeof node.minLength === "number") schema = schema.min(node.minLength);
  if (typeof node.maxLength === "number") schema = schema.max(node.maxLength);
  if (typeof node.pattern !== "string") return { schema, metadata: {} };
  const pattern = compilePattern(node.pattern);
  // The checks compiled this pattern already; failing now would mean they let it through by mistake.
  if (!pattern.ok) throw new Error(`"pattern" ${pattern.reason}`);
  return {
    schema: schema.check(patternGuard(node.pattern, pattern)),
    metadata: { pattern: node.pattern },
  };
}

function numberSchema(node: SchemaNode, integer: boolean): Built {
  let schema = integer ? z.number().int() : z.number();
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = node;
  // draft-04's boolean exclusiveMinimum/Maximum turns the sibling bound exclusive.
  if (typeof minimum === "number")
    schema = exclusiveMinimum === true ? schema.gt(minimum) : schema.min(minimum);
  if (typeof maximum === "number")
    schema = exclusiveMaximum === true ? schema.lt(maximum) : schema.max(maximum);
  if (typeof exclusiveMinimum === "number") schema = schema.gt(exclusiveMinimum);
  if (typeof exclusiveMaximum === "number") schema = schema.lt(exclusiveMaximum);
  if (typeof multipleOf !== "number") return { schema, metadata: {} };
  return { schema: schema.check(multipleOfGuard(multipleOf)), metadata: { multipleOf } };
}

function objectSchema(node: SchemaNode): Built {
  const properties = isRecord(node.properties) ? node.properties : {};
  const requiredList = Array.isArray(node.required) ? (node.required as string[]) : [];
  const required = new Set(requiredList);
  const shape: Record<string, ZodType> = {};
  for (const [name, subschema] of Object.entries(properties)) {
    const property = nodeToZod(subschema as SchemaNode);
    // The checks refuse a "__proto__" property, so plain assignment defines an own key.
    shape[name] = required.has(name) ? property : property.optional();
  }
  const object = z.object(shape);
  const additional = node.additionalProperties;
  let schema: ZodType =
    additional === false
      ? object.strict()
      : isRecord(additional)
        ? object.catchall(nodeToZod(additional))
        : object.passthrough();
  const metadata: Metadata = {};
  // An applicator branch may require a property only the object it applies to declares; zod's shape
  // cannot say so, so a guard checks the key and the metadata shows the whole list.
  const undeclared = requiredList.filter((name) => !Object.hasOwn(properties, name));
  if (undeclared.length > 0) {
    schema = schema.check(requiredGuard(undeclared));
    metadata.required = requiredList;
  }
  const names = isRecord(node.propertyNames) ? nodeToZod(node.propertyNames, "string") : undefined;
  if (names) metadata.propertyNames = shown(names);
  const counts = { minProperties: node.minProperties, maxProperties: node.maxProperties };
  for (const [keyword, value] of Object.entries(counts))
    if (typeof value === "number") metadata[keyword] = value;
  const dependentRequired = isRecord(node.dependentRequired)
    ? (node.dependentRequired as Record<string, string[]>)
    : undefined;
  if (dependentRequired) metadata.dependentRequired = dependentRequired;
  if (
    names ||
    counts.minProperties !== undefined ||
    counts.maxProperties !== undefined ||
    dependentRequired
  ) {
    schema = schema.check(
      objectGuard({
        ...(typeof counts.minProperties === "number" ? { minProperties: counts.minProperties } : {}),
        ...(typeof counts.maxProperties === "number" ? { maxProperties: counts.maxProperties } : {}),
        ...(names ? { propertyName: (name: string) => names.safeParse(name).success } : {}),
        ...(dependentRequired ? { dependentRequired } : {}),
      }),
    );
  }
  return { schema, metadata };
}

function arraySchema(node: SchemaNode): Built {
  const { minItems, maxItems, items } = node;
  let schema: ZodType;
  if (Array.isArray(node.prefixItems)) {
    const lower = typeof minItems === "number" ? minItems : 0;
    // Positions past minItems may be absent: JSON Schema constrains only the items that are there.
    const positional = node.prefixItems.map((subschema: SchemaNode, index) =>
      index < lower ? nodeToZod(subschema) : nodeToZod(subschema).optional(),
    );
    const tuple = z.tuple(positional as [ZodType, ...ZodType[]]);
    let bounded: ZodType = items === false ? tuple : tuple.rest(isRecord(items) ? nodeToZod(items) : z.any());
    if (typeof minItems === "number") bounded = bounded.check(z.minLength(minItems));
    if (typeof maxItems === "number") bounded = bounded.check(z.maxLength(maxItems));
    schema = bounded;
  } else {
    let array = z.array(isRecord(items) ? nodeToZod(items) : z.any());
    if (typeof minItems === "number") array = array.min(minItems);
    if (typeof maxItems === "number") array = array.max(maxItems);
    schema = array;
  }
  const metadata: Metadata = {};
  const contains = isRecord(node.contains) ? nodeToZod(node.contains) : undefined;
  if (typeof node.uniqueItems === "boolean") metadata.uniqueItems = node.uniqueItems;
  if (contains) metadata.contains = shown(contains);
  for (const keyword of ["minContains", "maxContains"] as const) {
    if (typeof node[keyword] === "number") metadata[keyword] = node[keyword];
  }
  if (node.uniqueItems === true || contains) {
    schema = schema.check(
      arrayGuard({
        uniqueItems: node.uniqueItems === true,
        ...(contains ? { contains: ownPropertyValidator(contains) } : {}),
        ...(typeof node.minContains === "number" ? { minContains: node.minContains } : {}),
        ...(typeof node.maxContains === "number" ? { maxContains: node.maxContains } : {}),
      }),
    );
  }
  return { schema, metadata };
}
