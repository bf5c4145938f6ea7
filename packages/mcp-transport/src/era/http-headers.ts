import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { envelopeVersion, isRecord } from "./envelope.js";

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

/** Whether a header value must travel base64-encoded: empty, padded, sentinel-shaped or not visible ASCII. */
function needsBase64(value: string): boolean {
  if (value.length === 0 || value !== value.trim()) return true;
  if (value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX)) return true;
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (code !== 9 && (code < 32 || code > 126)) return true;
  }
  return false;
}

/** A header value as SEP-2243 encodes it: as is when it is plain ASCII, else `=?base64?…?=` of its UTF-8. */
export function encodeHeaderValue(value: string): string {
  return needsBase64(value)
    ? `${BASE64_PREFIX}${Buffer.from(value, "utf8").toString("base64")}${BASE64_SUFFIX}`
    : value;
}

/** The standard headers a 2026-07-28 request carries, derived from its body; none for any other message. */
export function standardHeaders(message: unknown): Record<string, string> {
  const version = envelopeVersion(message);
  if (!version || !isRecord(message) || typeof message.method !== "string") return {};
  const headers: Record<string, string> = { "mcp-protocol-version": version, "mcp-method": message.method };
  const field = NAME_SOURCE[message.method];
  const name = field && isRecord(message.params) ? message.params[field] : undefined;
  if (typeof name === "string") headers["mcp-name"] = encodeHeaderValue(name);
  return headers;
}

/**
 * Wraps `fetch` so every POST whose body is a 2026-07-28 request (it carries the `_meta` envelope)
 * also carries `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`; other requests pass untouched,
 * so a handshake-era exchange never sees a 2026 header.
 */
export function withStandardHeaders(base: FetchLike): FetchLike {
  return (url, init) => {
    if (init?.method !== "POST" || typeof init.body !== "string") return base(url, init);
    let message: unknown;
    try {
      message = JSON.parse(init.body);
    } catch {
      return base(url, init);
    }
    const extra = standardHeaders(message);
    if (Object.keys(extra).length === 0) return base(url, init);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return base(url, { ...init, headers });
  };
}
