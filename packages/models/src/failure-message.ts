const REDACTED = "[redacted]";
const MAX_MESSAGE_LENGTH = 600;
// A credential a server may echo back: bearer tokens and api-key headers, whatever their value.
const BEARER = /\b(bearer)\s+[^\s"',;()[\]{}]+/gi;
const KEY_HEADER = /\b((?:x-)?api[-_]key)(["']?\s*[:=]\s*["']?)[^\s"',;}]+/gi;
// Userinfo of a URL (`http://user:secret@host`), e.g. a baseUrl named in a connection error.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;
// C0 controls (newlines included: a failure is one line), DEL and C1 controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Makes text from a server or an SDK safe for a failure message: the API key and anything that looks
 * like a credential removed, control characters dropped, length capped.
 */
export function sanitizeFailureText(text: string, apiKey: string): string {
  let result = text;
  // Very short keys (local servers accept "x") would garble messages without protecting anything.
  if (apiKey.length >= 6) result = result.split(apiKey).join(REDACTED);
  result = result
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(KEY_HEADER, `$1$2${REDACTED}`)
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(CONTROL, " ");
  return result.length > MAX_MESSAGE_LENGTH ? `${result.slice(0, MAX_MESSAGE_LENGTH)}…` : result;
}
