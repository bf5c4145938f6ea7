import type { SchemaIssue } from "./check-schema.js";
import { parseLocalPointer, ROOT_POINTER } from "./json-pointer.js";
import { DEFINITION_KEYWORDS, isAnnotation } from "./keywords.js";
import { mapSubschemas, type SchemaNode } from "./subschemas.js";

/** The outcome of {@link inlineRefs}: a schema without `$ref`, `$defs` or `definitions`, or why not. */
export type InlineResult = { ok: true; schema: SchemaNode } | { ok: false; issues: SchemaIssue[] };

/** Upper bound on the schema nodes inlining may produce; shared definitions can otherwise grow exponentially. */
export const MAX_INLINED_NODES = 10_000;

/**
 * Replaces every `$ref` to `#/$defs/<name>` or `#/definitions/<name>` by a copy of its target, so that
 * zod never resolves references itself (its resolution depends on the `$schema` dialect). A `$ref`'s
 * sibling annotations override the target's. Recursive references are rejected: the result must be a
 * finite tree. Expects a schema that {@link checkJsonSchema} accepted.
 */
export function inlineRefs(root: SchemaNode): InlineResult {
  const issues: SchemaIssue[] = [];
  let budget = MAX_INLINED_NODES;
  const visit = (node: SchemaNode, pointer: string, active: readonly string[]): SchemaNode => {
    budget -= 1;
    if (budget < 0) return node;
    if (typeof node.$ref !== "string")
      return mapSubschemas(node, pointer, (child, at) => visit(child, at, active));
    const ref = node.$ref;
    if (active.includes(ref)) {
      issues.push({ pointer, message: `"$ref" ${JSON.stringify(ref)} is recursive, which is not supported` });
      return node;
    }
    const target = resolve(root, ref);
    if (target === undefined) {
      issues.push({ pointer, message: `"$ref" ${JSON.stringify(ref)} does not resolve to a schema` });
      return node;
    }
    const annotations = Object.fromEntries(Object.entries(node).filter(([keyword]) => isAnnotation(keyword)));
    return { ...visit(target, pointer, [...active, ref]), ...annotations };
  };
  const { $defs: _defs, definitions: _definitions, ...body } = root;
  const schema = visit(body, ROOT_POINTER, []);
  if (budget < 0) {
    issues.push({
      pointer: ROOT_POINTER,
      message: `inlining its "$ref"s would exceed ${MAX_INLINED_NODES} schema nodes`,
    });
  }
  return issues.length === 0 ? { ok: true, schema } : { ok: false, issues };
}

function resolve(root: SchemaNode, ref: string): SchemaNode | undefined {
  const tokens = parseLocalPointer(ref);
  if (tokens?.length !== 2) return undefined;
  const [keyword, name] = tokens as [string, string];
  if (!DEFINITION_KEYWORDS.includes(keyword)) return undefined;
  const definitions = root[keyword];
  if (typeof definitions !== "object" || definitions === null || !Object.hasOwn(definitions, name))
    return undefined;
  const target = (definitions as SchemaNode)[name];
  return typeof target === "object" && target !== null && !Array.isArray(target)
    ? (target as SchemaNode)
    : undefined;
}
