import { carrierKey } from "./annotation-registry.js";
import { ROOT_POINTER } from "./json-pointer.js";
import { CARRIED_ANNOTATIONS } from "./keywords.js";
import { mapSubschemas, type SchemaNode } from "./subschemas.js";

/**
 * Rewrites a checked, ref-free schema into the form that `z.fromJSONSchema` converts exactly: drops
 * `$schema` (zod would pick a dialect from it; the accepted keywords mean the same in all of them),
 * renames the annotations zod would act on to their carrier keys, and gives arrays that have length
 * bounds but no `items` an explicit `items: {}` (zod ignores `minItems`/`maxItems` otherwise).
 */
export function prepareForZod(schema: SchemaNode): SchemaNode {
  const { $schema: _dialect, ...body } = schema;
  return prepareNode(body);
}

function prepareNode(node: SchemaNode): SchemaNode {
  const result = mapSubschemas(node, ROOT_POINTER, (child) => prepareNode(child));
  for (const keyword of CARRIED_ANNOTATIONS) {
    if (!Object.hasOwn(result, keyword)) continue;
    result[carrierKey(keyword)] = result[keyword];
    delete result[keyword];
  }
  const types = Array.isArray(result.type) ? result.type : [result.type];
  const hasLengthBounds = result.minItems !== undefined || result.maxItems !== undefined;
  if (types.includes("array") && result.items === undefined && hasLengthBounds) result.items = {};
  return result;
}
