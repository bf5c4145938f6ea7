/**
 * The bound on what a tool call's `Mcp-Param-*` headers may add to one HTTP request (SEP-2243). A
 * server picks which parameters are mirrored, the model picks their values: without a bound, a long
 * argument becomes a header block that proxies and servers reject with an opaque 431, or that some
 * truncate. A call over the bound is refused before anything is sent, with what to do about it.
 */
import { MCP_ERROR_CODES, type McpError } from "../transport.js";
import { isRecord } from "./envelope.js";
import { paramHeaders } from "./http-headers.js";
import type { ToolHeaderIndex } from "./tool-header-index.js";

/**
 * The most bytes one call's `Mcp-Param-*` headers may take, names, `: ` and values (after encoding)
 * together: half of Node's default 16 KiB limit on a request's whole header block, leaving room for
 * the standard headers, `Authorization` and whatever a proxy adds.
 */
export const MAX_PARAM_HEADER_BYTES = 8 * 1024;

/** The size of a header block as it goes on the wire (each line `name: value`; encoded values are ASCII). */
function headerBytes(headers: Readonly<Record<string, string>>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers)) bytes += name.length + 2 + value.length;
  return bytes;
}

/**
 * Why a stateless `tools/call` must not be sent: its arguments would be mirrored as more than
 * `limit` bytes of `Mcp-Param-*` headers. Undefined for any other request, and for a call within it.
 */
export function paramHeaderOverflow(
  method: string,
  params: unknown,
  index: ToolHeaderIndex,
  limit: number = MAX_PARAM_HEADER_BYTES,
): McpError | undefined {
  if (method !== "tools/call" || !isRecord(params) || typeof params.name !== "string") return undefined;
  const mirrored = index.headersOf(params.name);
  if (mirrored.length === 0) return undefined;
  const bytes = headerBytes(paramHeaders(mirrored, params.arguments));
  if (bytes <= limit) return undefined;
  return {
    code: MCP_ERROR_CODES.invalidParams,
    message: `The arguments of tool "${params.name}" would be sent as ${bytes} bytes of Mcp-Param-* headers, more than the ${limit} allowed; shorten the values of its header parameters (${mirrored.map((header) => header.path.join(".")).join(", ")}).`,
    data: { reason: "param_headers_too_large", bytes, limit },
  };
}
