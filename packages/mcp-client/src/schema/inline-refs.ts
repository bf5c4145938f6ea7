import { isAnnotationKeyword } from "@agent/tools";
import { isRecord } from "../records.js";
import type { SchemaIssue } from "./check-schema.js";
import { parseLocalPointer, ROOT_POINTER } from "./json-pointer.js";
import { forEachSubschema, mapSubschemas, type SchemaNode } from "./subschemas.js";

/**
 * The outcome of {@link inlineRefs}: a schema without `$ref`, `$defs` or `definitions` (`inlined` says
 * whether any definition was copied into it), or why not.
 */
export type InlineResult =
  | { ok: true; schema: SchemaNode; inlined: boolean }
  | { ok: false; issues: SchemaIssue[] };

/** Upper bound on the schema nodes inlining may produce; shared definitions can otherwise grow exponentially. */
export const MAX_INLINED_NODES = 10_000;

/**
 * Replaces every `$ref` (a JSON pointer into the schema: `#/$defs/<name>`, `#/definitions/<name>`,
 * `#/properties/<name>`, …) by a copy of its target, so that
 * zod never resolves references itself (its resolution depends on the `$schema` dialect). A `$ref`'s
 * sibling annotations override the target's. Recursive references are rejected: the result must be a
 * finite tree. Expects a schema that {@link checkJsonSchema} accepted.
 */
export function inlineRefs(root: SchemaNode): InlineResult {
  // The result has no definitions (their users get copies); a root without any is the body as it is.
  const body = root.$defs === undefined && root.definitions === undefined ? root : withoutDefinitions(root);
  // Most schemas have no reference: then the body is the result as it is, without a copy. (The
  // callers copy before they change anything.) A larger one still takes the path that rejects it.
  if (refFreeSize(body) <= MAX_INLINED_NODES) return { ok: true, schema: body, inlined: false };
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
    const annotations = Object.fromEntries(
      Object.entries(node).filter(([keyword]) => isAnnotationKeyword(keyword)),
    );
    // The copy leaves "$defs", so the name "$anchor" gave it there goes (no "$ref" may use it anyway).
    const { $anchor: _name, ...copy } = visit(target, pointer, [...active, ref]);
    return { ...copy, ...annotations };
  };
  const schema = visit(body, ROOT_POINTER, []);
  if (budget < 0) {
    issues.push({
      pointer: ROOT_POINTER,
      message: `inlining its "$ref"s would exceed ${MAX_INLINED_NODES} schema nodes`,
    });
  }
  return issues.length === 0 ? { ok: true, schema, inlined: true } : { ok: false, issues };
}

function withoutDefinitions(root: SchemaNode): SchemaNode {
  const { $defs: _defs, definitions: _definitions, ...body } = root;
  return body;
}

/** The nodes of a tree as `visit` in {@link inlineRefs} counts them, or Infinity if it holds a `$ref`. */
function refFreeSize(node: SchemaNode): number {
  if (typeof node.$ref === "string") return Number.POSITIVE_INFINITY;
  let size = 1;
  forEachSubschema(node, (child) => {
    size += refFreeSize(child);
  });
  return size;
}

/** The schema a local JSON pointer names in `root` (own keys, array indexes), if it is a schema object. */
function resolve(root: SchemaNode, ref: string): SchemaNode | undefined {
  const tokens = parseLocalPointer(ref);
  if (tokens === undefined) return undefined;
  let target: unknown = root;
  for (const token of tokens) {
    if (Array.isArray(target) && /^(0|[1-9]\d*)$/.test(token)) target = target[Number(token)];
    else if (typeof target === "object" && target !== null && Object.hasOwn(target, token))
      target = (target as SchemaNode)[token];
    else return undefined;
  }
  return isRecord(target) ? target : undefined;
}
