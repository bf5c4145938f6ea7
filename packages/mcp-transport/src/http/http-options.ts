import { assertNonNegative, describeKind } from "../assert-argument.js";
import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "../errors.js";

/** What both HTTP transports (Streamable HTTP and legacy SSE) take. */
export interface HttpEndpointOptions {
  /** The MCP endpoint. Credentials belong in `headers`, never in the URL's userinfo. */
  url: string | URL;
  /** Sent with every request (e.g. `Authorization`); their values never appear in messages. */
  headers?: Readonly<Record<string, string>>;
  /** The largest JSON response, or server-sent event, accepted; a larger one closes the connection (default 4 MiB). */
  maxResponseBytes?: number;
  /** Upper bound for ending the session on `close()` (default 3000); the transport's `closeTimeoutMs` adds the adapter's margin. */
  closeTimeoutMs?: number;
}

/** The options of an HTTP transport, checked, with defaults. */
export interface ResolvedHttpOptions {
  url: URL;
  headers: Record<string, string>;
  maxResponseBytes: number;
  closeTimeoutMs: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 3000;

/** Checks the options shared by the HTTP transports; throws `invalid_argument` (never echoing a URL, which may carry a token). */
export function readHttpOptions(options: HttpEndpointOptions): ResolvedHttpOptions {
  const url = parseEndpoint(options.url);
  const headers = { ...options.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") invalid(`headers.${name} must be a string, got ${describeKind(value)}.`);
  }
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  assertNonNegative("maxResponseBytes", maxResponseBytes, "bytes");
  const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  assertNonNegative("closeTimeoutMs", closeTimeoutMs, "milliseconds");
  return { url, headers, maxResponseBytes, closeTimeoutMs };
}

function parseEndpoint(value: string | URL): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value itself is not echoed: it may carry a token.
    return invalid("url must be an absolute http(s) URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    invalid(`url must use http or https, got ${url.protocol}`);
  if (url.username || url.password) {
    invalid("url must not contain credentials (user:password@); pass them in headers, e.g. Authorization.");
  }
  return url;
}

function invalid(message: string): never {
  throw new McpTransportError(MCP_TRANSPORT_ERROR_CODES.invalidArgument, message);
}
