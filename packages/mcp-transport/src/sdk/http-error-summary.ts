import { escapeControlCharacters } from "../escape-control-characters.js";

// What an HTTP error's message may show of the server's error page: users see this line in
// listings, call results and the audit trail, so it stays one short, printable line.

/** The most characters of an error page's text kept in a message (an ellipsis marks a cut). */
export const HTTP_ERROR_EXCERPT_CHARS = 200;

// Only the start of a page is looked at: the excerpt is short, and a proxy's page can be megabytes.
const SCANNED_CHARS = 65_536;

// The reason phrases of RFC 9110 for the statuses an MCP endpoint or a proxy in front of it answers
// with; HTTP/2 sends no phrase at all, so the status decides, not the server's wording.
const REASON_PHRASES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  407: "Proxy Authentication Required",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  421: "Misdirected Request",
  422: "Unprocessable Content",
  425: "Too Early",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  507: "Insufficient Storage",
  511: "Network Authentication Required",
};

/** `HTTP 502 Bad Gateway`: the status and its standard reason phrase (just the status when it has none). */
export function httpStatusLine(status: number): string {
  const reason = REASON_PHRASES[status];
  return reason ? `HTTP ${status} ${reason}` : `HTTP ${status}`;
}

/**
 * One line for an HTTP error response: its status line and, when the body has any text, a short
 * excerpt of it (markup, scripts and styles dropped, whitespace collapsed, control characters
 * escaped, at most {@link HTTP_ERROR_EXCERPT_CHARS} characters), quoted:
 * `HTTP 502 Bad Gateway: "502 Bad Gateway nginx"`. `redact` runs on the whole text before it is
 * cut, so a secret the page echoes is never shown in part.
 */
export function summarizeHttpError(status: number, body: string, redact: (text: string) => string): string {
  const head = body.slice(0, SCANNED_CHARS);
  const text = redact(collapseWhitespace(looksLikeMarkup(head) ? stripMarkup(head) : head));
  if (text === "") return httpStatusLine(status);
  return `${httpStatusLine(status)}: "${escapedExcerpt(text, HTTP_ERROR_EXCERPT_CHARS)}"`;
}

function looksLikeMarkup(text: string): boolean {
  return /<(?:[a-z][a-z0-9-]*|!--|!doctype|\/[a-z])/i.test(text);
}

function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

// Linear in the text (no backtracking regular expression over untrusted markup): every tag becomes
// a space, so text on both sides of it never joins into a word that was not there.
function stripMarkup(html: string): string {
  const lower = html.toLowerCase();
  const parts: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf("<", at);
    if (open === -1) {
      parts.push(html.slice(at));
      break;
    }
    parts.push(html.slice(at, open), " ");
    at = skipTag(lower, open);
  }
  return parts.join("");
}

/** Where the text resumes after the tag (or comment, or script/style element) opening at `open`. */
function skipTag(lower: string, open: number): number {
  if (lower.startsWith("<!--", open)) return after(lower, "-->", open + 4);
  for (const element of ["script", "style"]) {
    if (lower.startsWith(`<${element}`, open) && !/[a-z0-9-]/.test(lower[open + element.length + 1] ?? "")) {
      const close = lower.indexOf(`</${element}`, open);
      return close === -1 ? lower.length : after(lower, ">", close);
    }
  }
  return after(lower, ">", open + 1);
}

function after(text: string, token: string, from: number): number {
  const found = text.indexOf(token, from);
  return found === -1 ? text.length : found + token.length;
}

/**
 * The text with control characters escaped, cut to at most `limit` characters as shown (code points:
 * an escape counts whole and is never split, nor is a surrogate pair), an ellipsis marking a cut.
 */
function escapedExcerpt(text: string, limit: number): string {
  const parts = Array.from(text, (character) => {
    const escaped = escapeControlCharacters(character);
    // An escape is ASCII; an unescaped character is one code point, whatever its UTF-16 length.
    return { shown: escaped, width: escaped === character ? 1 : escaped.length };
  });
  if (parts.reduce((sum, part) => sum + part.width, 0) <= limit)
    return parts.map((part) => part.shown).join("");
  let width = 0;
  let count = 0;
  for (const part of parts) {
    if (width + part.width > limit - 1) break;
    width += part.width;
    count += 1;
  }
  return `${parts
    .slice(0, count)
    .map((part) => part.shown)
    .join("")}…`;
}
