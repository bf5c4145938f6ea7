import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { envelopeVersion, isRecord } from "./envelope.js";
import { type RequestStreams, requestIdOf } from "./request-streams.js";
import type { ToolHeaderIndex } from "./tool-header-index.js";
import { PARAM_HEADER_PREFIX, type ToolParamHeader } from "./tool-param-headers.js";

/** Which request param names the `Mcp-Name` header mirrors (SEP-2243). */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const BASE64_PREFIX = "=?base64?";
const BASE64_SUFFIX = "?=";

/**
 * Whether a header value must travel base64-encoded: empty, padded with whitespace, shaped like the
 * sentinel itself, or holding anything but printable ASCII and inner spaces (a tab or a line break
 * too: a proxy may fold or strip them).
 */
function needsBase64(value: string): boolean {
  if (value.length === 0 || value !== value.trim()) return true;
  if (value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX)) return true;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 32 || code > 126) return true;
  }
  return false;
}

/** A header value as SEP-2243 encodes it: as is when it is plain ASCII, else `=?base64?…?=` of its UTF-8. */
export function encodeHeaderValue(value: string): string {
  return needsBase64(value)
    ? `${BASE64_PREFIX}${Buffer.from(value, "utf8").toString("base64")}${BASE64_SUFFIX}`
    : value;
}

/** An argument's header text: strings encoded, integers and booleans as JSON writes them; none for null or absent. */
function headerText(value: unknown, type: ToolParamHeader["type"]): string | undefined {
  // null, absent, or a value of another type than the schema declared (the server refuses the call).
  if (type === "string") return typeof value === "string" ? encodeHeaderValue(value) : undefined;
  if (type === "boolean") return typeof value === "boolean" ? String(value) : undefined;
  return typeof value === "number" && Number.isSafeInteger(value) ? String(value) : undefined;
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (!isRecord(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

/** The `Mcp-Param-*` headers of one call: one per annotated parameter the arguments hold a value for. */
export function paramHeaders(headers: readonly ToolParamHeader[], args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const header of headers) {
    const text = headerText(valueAt(args, header.path), header.type);
    if (text !== undefined) out[`${PARAM_HEADER_PREFIX}${header.name}`.toLowerCase()] = text;
  }
  return out;
}

/**
 * The standard headers a 2026-07-28 request carries, derived from its body (and, for `tools/call`,
 * the tool's annotated parameters as `index` learned them); none for any other message.
 */
export function standardHeaders(message: unknown, index?: ToolHeaderIndex): Record<string, string> {
  const version = envelopeVersion(message);
  if (!version || !isRecord(message) || typeof message.method !== "string") return {};
  const headers: Record<string, string> = { "mcp-protocol-version": version, "mcp-method": message.method };
  const params = isRecord(message.params) ? message.params : undefined;
  const field = NAME_SOURCE[message.method];
  const name = field && params ? params[field] : undefined;
  if (typeof name === "string") headers["mcp-name"] = encodeHeaderValue(name);
  if (message.method === "tools/call" && index && typeof name === "string") {
    Object.assign(headers, paramHeaders(index.headersOf(name), params?.arguments));
  }
  return headers;
}

/**
 * Wraps `fetch` so every POST whose body is a 2026-07-28 request (it carries the `_meta` envelope)
 * also carries `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and a tool call's `Mcp-Param-*`;
 * other requests pass untouched, so a handshake-era exchange never sees a 2026 header. With
 * `streams`, each such request's response stream is tracked so that cancelling it closes that
 * stream (the revision's cancellation over HTTP) instead of posting `notifications/cancelled`.
 */
export function withStandardHeaders(
  base: FetchLike,
  index?: ToolHeaderIndex,
  streams?: RequestStreams,
): FetchLike {
  return (url, init) => {
    if (streams && init?.method === "GET") {
      const refused = streams.refusedResumption();
      if (refused) return Promise.resolve(refused);
    }
    if (init?.method !== "POST" || typeof init.body !== "string") return base(url, init);
    let message: unknown;
    try {
      message = JSON.parse(init.body);
    } catch {
      return base(url, init);
    }
    const closed = streams?.cancel(message);
    if (closed) return Promise.resolve(closed);
    const extra = standardHeaders(message, index);
    if (Object.keys(extra).length === 0) return base(url, init);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    const request = { ...init, headers };
    const id = streams ? requestIdOf(message) : undefined;
    if (!streams || id === undefined) return base(url, request);
    return streams.open(id, request, (opened) => base(url, opened));
  };
}
