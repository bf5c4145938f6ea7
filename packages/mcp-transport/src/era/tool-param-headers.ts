/**
 * SEP-2243's custom headers (2026-07-28): a tool's input schema may mark a parameter with
 * `x-mcp-header: "<Name>"`, and every `tools/call` of that tool over Streamable HTTP then carries the
 * argument's value as `Mcp-Param-<Name>`. The annotation is a wire contract the server checks against
 * the body, so a tool whose annotation breaks a rule is invalid as a whole (the client excludes it);
 * the rules here are the specification's, as the conformance suite holds clients to them.
 */
import { isRecord } from "./envelope.js";

/** The schema keyword that names a parameter's header. */
export const X_MCP_HEADER = "x-mcp-header";

/** The prefix of every mirrored parameter's header name. */
export const PARAM_HEADER_PREFIX = "Mcp-Param-";

/** One annotated parameter: the header's name part and where the value sits in the arguments. */
export interface ToolParamHeader {
  /** The name after `Mcp-Param-`, as the server spelled it. */
  name: string;
  /** Property names from the arguments object down to the value (`properties` chains only). */
  path: readonly string[];
  /** The parameter's declared type; a value of another type is not mirrored. */
  type: ToolParamHeaderType;
}

/** The types an annotated parameter may have: each has one unambiguous text form. */
export type ToolParamHeaderType = "string" | "integer" | "boolean";

/** A tool's annotated parameters, or why its annotations make the tool invalid. */
export type ToolParamHeadersResult =
  | { ok: true; headers: readonly ToolParamHeader[] }
  | { ok: false; reason: string };

/** RFC 9110 token (1*tchar): no space, no control character, no delimiter, ASCII only. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const HEADER_TYPES: readonly ToolParamHeaderType[] = ["string", "integer", "boolean"];

function isHeaderType(type: string | undefined): type is ToolParamHeaderType {
  return HEADER_TYPES.some((candidate) => candidate === type);
}

/** Keywords whose values are data, never subschemas: an `x-mcp-header` key inside them is a value. */
const DATA_KEYWORDS: ReadonlySet<string> = new Set(["default", "examples", "const", "enum"]);

/** Deeper schemas are refused rather than walked (a hostile listing must not exhaust the stack). */
const MAX_DEPTH = 64;

class InvalidAnnotation extends Error {}

function describePath(path: readonly string[]): string {
  return path.length === 0 ? "the input schema" : `parameter "${path.join(".")}"`;
}

/** The one primitive type a schema declares (`"string"`, or `["string", "null"]`), if it does. */
function primitiveType(schema: Record<string, unknown>): string | undefined {
  const { type } = schema;
  if (typeof type === "string") return type;
  if (!Array.isArray(type)) return undefined;
  const nonNull = type.filter((member) => member !== "null");
  return nonNull.length === 1 && typeof nonNull[0] === "string" ? nonNull[0] : undefined;
}

function checkAnnotation(schema: Record<string, unknown>, path: readonly string[]): ToolParamHeader {
  const name = schema[X_MCP_HEADER];
  const where = describePath(path);
  if (path.length === 0)
    throw new InvalidAnnotation(`${X_MCP_HEADER} may only annotate a parameter, not ${where}`);
  if (typeof name !== "string" || name.length === 0) {
    throw new InvalidAnnotation(`${X_MCP_HEADER} of ${where} must be a non-empty string`);
  }
  if (!TOKEN.test(name)) {
    throw new InvalidAnnotation(
      `${X_MCP_HEADER} of ${where} must be an HTTP token (ASCII letters, digits and !#$%&'*+-.^_\`|~; no space, colon or control character)`,
    );
  }
  const type = primitiveType(schema);
  if (!isHeaderType(type)) {
    throw new InvalidAnnotation(
      `${X_MCP_HEADER} of ${where} needs type string, integer or boolean, not ${type === undefined ? "an unspecified type" : type}`,
    );
  }
  return { name, path, type };
}

/** Fails on any `x-mcp-header` below `value`: nothing there is reachable through `properties` alone. */
function refuseBelow(value: unknown, path: readonly string[], keyword: string, depth: number): void {
  if (depth > MAX_DEPTH)
    throw new InvalidAnnotation(`the input schema nests deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    for (const item of value) refuseBelow(item, path, keyword, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  if (Object.hasOwn(value, X_MCP_HEADER)) {
    throw new InvalidAnnotation(
      `${X_MCP_HEADER} under "${keyword}" of ${describePath(path)} cannot be mirrored: only parameters reached through "properties" may carry one`,
    );
  }
  for (const [key, inner] of Object.entries(value)) {
    if (!DATA_KEYWORDS.has(key)) refuseBelow(inner, path, keyword, depth + 1);
  }
}

function visit(
  schema: Record<string, unknown>,
  path: readonly string[],
  found: ToolParamHeader[],
  depth: number,
): void {
  if (depth > MAX_DEPTH)
    throw new InvalidAnnotation(`the input schema nests deeper than ${MAX_DEPTH} levels`);
  if (Object.hasOwn(schema, X_MCP_HEADER)) found.push(checkAnnotation(schema, path));
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === X_MCP_HEADER || DATA_KEYWORDS.has(keyword)) continue;
    if (keyword === "properties" && isRecord(value)) {
      for (const [property, subschema] of Object.entries(value)) {
        if (isRecord(subschema)) visit(subschema, [...path, property], found, depth + 1);
      }
      continue;
    }
    refuseBelow(value, path, keyword, depth + 1);
  }
}

/**
 * Reads a tool's `x-mcp-header` annotations: each on a parameter reached from the root through
 * `properties` alone, of type string, integer or boolean, named by a non-empty HTTP token, and no two
 * names equal ignoring case. Anything else makes the whole tool invalid (`ok: false`, with why).
 */
export function readToolParamHeaders(inputSchema: unknown): ToolParamHeadersResult {
  if (!isRecord(inputSchema)) return { ok: true, headers: [] };
  const found: ToolParamHeader[] = [];
  try {
    visit(inputSchema, [], found, 0);
  } catch (error) {
    if (error instanceof InvalidAnnotation) return { ok: false, reason: error.message };
    throw error;
  }
  const seen = new Map<string, ToolParamHeader>();
  for (const header of found) {
    const key = header.name.toLowerCase();
    const earlier = seen.get(key);
    if (earlier) {
      return {
        ok: false,
        reason: `${X_MCP_HEADER} "${header.name}" of ${describePath(header.path)} repeats "${earlier.name}" of ${describePath(earlier.path)} (header names ignore case)`,
      };
    }
    seen.set(key, header);
  }
  return { ok: true, headers: found };
}
