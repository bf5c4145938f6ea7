import { isRecord } from "../records.js";
import { childPointer } from "./json-pointer.js";

/** A JSON Schema node as the converter handles it after checking: a JSON object. */
export type SchemaNode = Record<string, unknown>;

/** Keywords whose value is one subschema. */
const SINGLE_SUBSCHEMA_KEYWORDS = [
  "items",
  "additionalProperties",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
] as const;

/** Keywords whose value is an array of subschemas. */
const SUBSCHEMA_LIST_KEYWORDS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;

/**
 * Returns a copy of `node` whose subschemas (in properties, items, additionalProperties, contains,
 * propertyNames, if/then/else, prefixItems and anyOf/oneOf/allOf branches) are replaced by `transform`'s result; boolean subschemas are passed through unchanged.
 * Definition maps (`$defs`, `definitions`) are not subschema positions and are left as they are.
 */
export function mapSubschemas(
  node: SchemaNode,
  pointer: string,
  transform: (subschema: SchemaNode, pointer: string) => SchemaNode,
): SchemaNode {
  const result: SchemaNode = { ...node };
  const map = (value: unknown, at: string): unknown => (isRecord(value) ? transform(value, at) : value);
  if (isRecord(node.properties)) {
    // fromEntries defines own properties, so even a key like "__proto__" stays data.
    result.properties = Object.fromEntries(
      Object.entries(node.properties).map(([name, subschema]) => [
        name,
        map(subschema, childPointer(childPointer(pointer, "properties"), name)),
      ]),
    );
  }
  for (const keyword of SINGLE_SUBSCHEMA_KEYWORDS) {
    if (node[keyword] !== undefined) result[keyword] = map(node[keyword], childPointer(pointer, keyword));
  }
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    const branches = node[keyword];
    if (Array.isArray(branches)) {
      result[keyword] = branches.map((branch, index) =>
        map(branch, childPointer(childPointer(pointer, keyword), index)),
      );
    }
  }
  return result;
}

/** Calls `visit` with each subschema that {@link mapSubschemas} would transform, in the same order. */
export function forEachSubschema(node: SchemaNode, visit: (subschema: SchemaNode) => void): void {
  const each = (value: unknown): void => {
    if (isRecord(value)) visit(value);
  };
  if (isRecord(node.properties)) for (const subschema of Object.values(node.properties)) each(subschema);
  for (const keyword of SINGLE_SUBSCHEMA_KEYWORDS) each(node[keyword]);
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    const branches = node[keyword];
    if (Array.isArray(branches)) for (const branch of branches) each(branch);
  }
}
