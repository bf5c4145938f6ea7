/**
 * A tool's `x-mcp-header` annotations (SEP-2243) as the client treats them: an invalid one rejects
 * the tool at discovery, visibly, with the rest of the server's tools kept; a valid one is a wire
 * contract for the transport (which mirrors the value as an `Mcp-Param-*` header), not something the
 * model is told, so it is taken out of the schema the tool is converted from. The fingerprint keeps
 * the schema as the server sent it: a changed annotation still voids an approval.
 */
import { readToolParamHeaders } from "@agent/mcp-transport";
import { isRecord } from "./records.js";

/** The rejection code of a tool whose `x-mcp-header` annotation breaks a rule. */
export const INVALID_TOOL_HEADER = "invalid_tool_header";

/** Why the tool's annotations make it invalid (`invalid_tool_header: …`), if they do. */
export function toolHeaderProblem(inputSchema: unknown): string | undefined {
  const read = readToolParamHeaders(inputSchema);
  return read.ok ? undefined : `${INVALID_TOOL_HEADER}: ${read.reason}`;
}

/** `schema` without the annotations: on the parameters reached through `properties`, the only valid place. */
export function withoutHeaderAnnotations(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const { "x-mcp-header": _annotation, ...rest } = schema;
  if (!isRecord(rest.properties)) return rest;
  const properties = Object.fromEntries(
    Object.entries(rest.properties).map(([name, subschema]) => [name, withoutHeaderAnnotations(subschema)]),
  );
  return { ...rest, properties };
}
