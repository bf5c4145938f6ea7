import type { IncomingMessage, ServerResponse } from "node:http";

/** The largest request body the console reads (a deny reason, a CSRF token): anything longer is refused. */
export const MAX_BODY_BYTES = 16 * 1024;

/** Sent with every response: nothing from another origin, no inline script, no framing, no caching. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  // Not `no-referrer`: under it a browser sends `Origin: null` with form posts, and the same-origin check needs the origin.
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
  "cross-origin-opener-policy": "same-origin",
  "cross-origin-resource-policy": "same-origin",
});

/** The stable codes of the API's error bodies `{ error: { code, message } }`. */
export const CONSOLE_ERROR_CODES = Object.freeze({
  notLoggedIn: "not_logged_in",
  loginLinkUsed: "login_link_used",
  hostNotAllowed: "host_not_allowed",
  crossOrigin: "cross_origin",
  csrfInvalid: "csrf_invalid",
  notFound: "not_found",
  methodNotAllowed: "method_not_allowed",
  badRequest: "bad_request",
  bodyTooLarge: "body_too_large",
  alreadyDecided: "already_decided",
  refused: "refused",
} as const);

/** One of {@link CONSOLE_ERROR_CODES}. */
export type ConsoleErrorCode = (typeof CONSOLE_ERROR_CODES)[keyof typeof CONSOLE_ERROR_CODES];

/** Writes `body` as JSON with the security headers. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...SECURITY_HEADERS, "content-type": "application/json; charset=utf-8" });
  response.end(JSON.stringify(body));
}

/** Writes an API error body. */
export function sendError(
  response: ServerResponse,
  status: number,
  code: ConsoleErrorCode | string,
  message: string,
  extra: Record<string, unknown> = {},
): void {
  sendJson(response, status, { error: { code, message, ...extra } });
}

/** Writes an HTML page with the security headers. */
export function sendHtml(response: ServerResponse, status: number, page: string): void {
  response.writeHead(status, { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8" });
  response.end(page);
}

/** Redirects (303) to a path of this console. */
export function redirect(
  response: ServerResponse,
  location: string,
  headers: Record<string, string> = {},
): void {
  response.writeHead(303, { ...SECURITY_HEADERS, ...headers, location });
  response.end();
}

/** Reads a small body as form fields (urlencoded) or a JSON object; undefined when it is too large. */
export async function readFields(request: IncomingMessage): Promise<Record<string, string> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if ((request.headers["content-type"] ?? "").startsWith("application/json")) {
    try {
      const parsed: unknown = text === "" ? {} : JSON.parse(text);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
      return Object.fromEntries(
        Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
      );
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/** Whether the client asked for HTML (a form post or a page) rather than JSON. */
export function wantsHtml(request: IncomingMessage): boolean {
  return (request.headers.accept ?? "").includes("text/html");
}
