const REDACTED = "[redacted]";

// Userinfo (`scheme://user:secret@host`) and query strings of any URL that shows up in a message.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;
const URL_QUERY = /\b([a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*)\?[^\s#"'<>]*/gi;

// Very short values would redact unrelated text ("1", "on") without protecting anything.
const MIN_SECRET_LENGTH = 6;

/** Removes the given secrets, and URL userinfo and query strings, from a message meant for errors, reasons or events. */
export function createRedactor(secrets: Iterable<string>): (text: string) => string {
  // Longest first, so a secret that contains another is replaced whole.
  const literals = [...new Set([...secrets].filter((secret) => secret.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  return (text: string): string => {
    let result = text;
    for (const literal of literals) result = result.split(literal).join(REDACTED);
    return result.replace(URL_USERINFO, `$1${REDACTED}@`).replace(URL_QUERY, `$1?${REDACTED}`);
  };
}

/** Collects the values in a URL and header map that may be credentials: userinfo, query values, header values and bearer tokens. */
export function credentialValues(
  url: URL | undefined,
  headers: Record<string, string> | undefined,
): string[] {
  const values: string[] = [];
  if (url) {
    if (url.username) values.push(url.username, decodeURIComponent(url.username));
    if (url.password) values.push(url.password, decodeURIComponent(url.password));
    for (const [, value] of url.searchParams) values.push(value, encodeURIComponent(value));
  }
  for (const value of Object.values(headers ?? {})) {
    values.push(value);
    // "Bearer abc", "Basic abc": the token alone may be echoed too.
    const token = value.split(/\s+/).at(-1);
    if (token) values.push(token);
  }
  return values;
}

/** Describes a URL without userinfo, query or fragment, for messages. */
export function displayUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
