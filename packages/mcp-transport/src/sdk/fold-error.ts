import { McpError as SdkMcpError } from "@modelcontextprotocol/sdk/types.js";
import { escapeControlCharacters } from "../escape-control-characters.js";
import { MCP_ERROR_CODES, type McpError, mcpFailure } from "../transport.js";
import { httpStatusLine, summarizeHttpError } from "./http-error-summary.js";
import { UNPARSABLE_RESULT_MESSAGE } from "./unparsable-result.js";

export { UNPARSABLE_RESULT_MESSAGE };

// The SDK prefixes every McpError message with its code; the code already travels separately.
const SDK_MESSAGE_PREFIX = /^MCP error -?\d+: /;

/** Folds anything the SDK rejects a request with into a failed response; `redact` cleans every message. */
export function foldRequestError(
  error: unknown,
  redact: (text: string) => string,
): { ok: false; error: McpError } {
  if (error instanceof SdkMcpError) {
    const message = redact(error.message.replace(SDK_MESSAGE_PREFIX, ""));
    return mcpFailure(error.code, message, error.data);
  }
  if (isZodError(error)) {
    return mcpFailure(MCP_ERROR_CODES.internalError, UNPARSABLE_RESULT_MESSAGE);
  }
  const message = redact(describeError(error));
  // Thrown by an OAuth provider that needs the user and cannot ask (`@agent/mcp-transport/oauth`).
  if (error instanceof Error && error.name === "OAuthLoginRequiredError") {
    return mcpFailure(MCP_ERROR_CODES.connectionClosed, message, { httpStatus: 401, loginRequired: true });
  }
  // Any other way an OAuth flow stopped (a refused authorization, an `iss` from another issuer).
  const oauthError = oauthErrorCodeOf(error);
  if (oauthError !== undefined) {
    return mcpFailure(MCP_ERROR_CODES.connectionClosed, message, { httpStatus: 401, oauthError });
  }
  const httpStatus = httpStatusOf(error);
  if (httpStatus !== undefined) {
    const rpcError = jsonRpcErrorIn(message);
    return mcpFailure(
      MCP_ERROR_CODES.connectionClosed,
      `the server answered ${describeHttpFailure(httpStatus, message, redact)}`,
      rpcError ? { httpStatus, rpcError } : { httpStatus },
    );
  }
  if (message === "Not connected") return mcpFailure(MCP_ERROR_CODES.connectionClosed, "connection closed");
  // Everything else the SDK rejects with is a failure to put the request on the wire.
  return mcpFailure(MCP_ERROR_CODES.connectionClosed, `could not send the request: ${message}`);
}

/** A one-line description of an error and its causes, for messages. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const parts = [error.message];
  let cause: unknown = error.cause;
  // Node's fetch hides the useful part ("ECONNREFUSED 127.0.0.1:80") in the cause chain.
  for (let depth = 0; cause instanceof Error && depth < 3; depth += 1) {
    if (cause.message && !parts.includes(cause.message)) parts.push(cause.message);
    cause = cause.cause;
  }
  return parts.join(": ");
}

/**
 * The JSON-RPC error an HTTP error response's body carried, if it was one (a 2026-07-28 server
 * answers e.g. an unsupported version with HTTP 400 and `-32022`, its supported versions in `data`).
 */
function jsonRpcErrorIn(message: string): McpError | undefined {
  const start = message.indexOf("{");
  if (start === -1) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(message.slice(start));
  } catch {
    return undefined;
  }
  const error = (body as { error?: unknown } | null)?.error as Partial<McpError> | undefined;
  if (typeof error?.code !== "number" || typeof error.message !== "string") return undefined;
  return error.data === undefined
    ? { code: error.code, message: error.message }
    : { code: error.code, message: error.message, data: error.data };
}

function isZodError(error: unknown): boolean {
  return error instanceof Error && error.name === "ZodError";
}

// StreamableHTTPError carries the HTTP status as a numeric `code` (-1 for an unexpected content type);
// the legacy SSE transport's POST puts it in its message.
function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.message.startsWith(STREAMABLE_HTTP_PREFIX)) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "number" && code >= 100 ? code : undefined;
  }
  const status = SSE_POST_FAILED.exec(error.message)?.[1];
  return status === undefined ? undefined : Number(status);
}

// DO NOT CHANGE CASUALLY: the SDK's wording (1.32) of a failed POST, which it follows with the whole
// response body. The HTTP transport tests send a large error page and check that only a summary shows.
const STREAMABLE_HTTP_PREFIX = "Streamable HTTP error: ";
const STREAMABLE_POST_FAILED = "Error POSTing to endpoint: ";
const SSE_POST_FAILED = /^Error POSTing to endpoint \(HTTP (\d{3})\): /;

/**
 * The status line, then the SDK's own words, or for a failed POST a short excerpt of the error page
 * the SDK quoted whole (`redact` has already run over it).
 */
function describeHttpFailure(status: number, message: string, redact: (text: string) => string): string {
  const detail = message.startsWith(STREAMABLE_HTTP_PREFIX)
    ? message.slice(STREAMABLE_HTTP_PREFIX.length)
    : message;
  const body = detail.startsWith(STREAMABLE_POST_FAILED)
    ? detail.slice(STREAMABLE_POST_FAILED.length)
    : SSE_POST_FAILED.test(detail)
      ? detail.replace(SSE_POST_FAILED, "")
      : undefined;
  if (body === undefined) return `${httpStatusLine(status)}: ${escapeControlCharacters(detail)}`;
  return summarizeHttpError(status, body, redact);
}

/** The `code` of an `OAuthFlowError` (recognized by name: the SDK layer does not import the OAuth one). */
function oauthErrorCodeOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== "OAuthFlowError") return undefined;
  const { code } = error as Error & { code?: unknown };
  return typeof code === "string" ? code : undefined;
}
