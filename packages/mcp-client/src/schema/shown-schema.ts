import type { JsonObject } from "@agent/tools";
import { isRecord } from "../records.js";
import { forEachSubschema, type SchemaNode } from "./subschemas.js";

/**
 * Keywords the parameters generated from zod cannot show as the server wrote them: a conditional is
 * rendered through zod's output, and a named definition is inlined away with its name.
 */
const ORIGINAL_ONLY_KEYWORDS = ["if", "$anchor"] as const;

/**
 * The parameters the model is shown for a checked remote schema, when they must be the schema
 * itself: it uses `if`/`then`/`else` or `$anchor`, which the checks admit (and the validator
 * enforces exactly) but the generated parameters would lose or reshape. Otherwise undefined: the
 * generated parameters stay, and so do the fingerprints of every tool accepted before such schemas
 * were. `$schema` and `$defs` are kept with the original, since its `$ref`s point into them.
 */
export function originalParameters(checked: unknown): JsonObject | undefined {
  return isRecord(checked) && usesOriginalOnlyKeyword(checked) ? (checked as JsonObject) : undefined;
}

function usesOriginalOnlyKeyword(node: SchemaNode): boolean {
  if (ORIGINAL_ONLY_KEYWORDS.some((keyword) => Object.hasOwn(node, keyword))) return true;
  let found = false;
  const visit = (child: SchemaNode): void => {
    found ||= usesOriginalOnlyKeyword(child);
  };
  forEachSubschema(node, visit);
  for (const definitions of [node.$defs, node.definitions]) {
    if (isRecord(definitions))
      for (const definition of Object.values(definitions)) if (isRecord(definition)) visit(definition);
  }
  return found;
}
