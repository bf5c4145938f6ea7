// What counts as "the secret appears" is a security boundary: a server that knows a credential
// (it is given its env and headers) may echo it in any encoding. Change the forms matched here only
// with a test that shows the new form is still caught.

const REDACTED = "[redacted]";

// Userinfo (`scheme://user:secret@host`) and query strings of any URL that shows up in a message.
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi;
const URL_QUERY = /\b([a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*)\?[^\s#"'<>]*/gi;

/**
 * Secrets shorter than this are not redacted: replacing every "1" or "on" would hide ordinary text
 * without protecting anything a guess would not find at once.
 */
export const MIN_SECRET_LENGTH = 4;

// Encoded forms shorter than this would match ordinary text too often to be worth it.
const MIN_ENCODED_LENGTH = 4;

/**
 * Removes configured secrets from text. Calling it also removes URL userinfo and query strings
 * (for messages); {@link Redactor.secrets} removes only the secrets (for data such as tool results).
 */
export interface Redactor {
  (text: string): string;
  /** Only the secrets and their encodings, nothing else: for data, where URLs may be meant. */
  secrets(text: string): string;
  /** Whether there is any secret to remove (URL userinfo and query strings are removed regardless). */
  readonly hasSecrets: boolean;
}

/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /** Secrets shorter than this are left alone (default {@link MIN_SECRET_LENGTH}). */
  minLength?: number;
}

/**
 * Builds a redactor for the given secrets. Each is found in its own form and as a server might
 * echo it: percent-encoded (any mix of escaped and plain characters, either hex case), JSON or
 * JavaScript escaped (`\u0041`, `\x41`, `\"`), hex (either case) and base64 or base64url, also
 * when embedded in a longer base64 text (all three alignments). Longest secrets are matched first.
 */
export function createRedactor(secrets: Iterable<string>, options: RedactorOptions = {}): Redactor {
  const minLength = options.minLength ?? MIN_SECRET_LENGTH;
  const values = [...new Set(secrets)].filter((secret) => secret.length >= minLength);
  const pattern = buildPattern(values);
  const removeSecrets = (text: string): string =>
    pattern === undefined ? text : text.replace(pattern, REDACTED);
  const redact = ((text: string): string =>
    removeSecrets(text)
      .replace(URL_USERINFO, `$1${REDACTED}@`)
      .replace(URL_QUERY, `$1?${REDACTED}`)) as Redactor;
  return Object.assign(redact, { secrets: removeSecrets, hasSecrets: pattern !== undefined });
}

/**
 * A copy of JSON-like data with {@link Redactor.secrets} applied to every string, object key and
 * number (a number that spells a secret becomes the redaction marker). Iterative, so any depth is
 * safe; `__proto__` keys stay data. Data without secrets to remove is returned as it is.
 */
export function redactJson<T>(value: T, redactor: Redactor): T {
  if (!redactor.hasSecrets) return value;
  const clean = (text: string) => redactor.secrets(text);
  const root: { value: unknown } = { value: undefined };
  const pending: { source: unknown; target: Record<string, unknown> | unknown[]; key: string | number }[] = [
    { source: value, target: root as unknown as Record<string, unknown>, key: "value" },
  ];
  for (let item = pending.pop(); item !== undefined; item = pending.pop()) {
    const { source, target, key } = item;
    let copy: unknown = source;
    if (typeof source === "string") copy = clean(source);
    else if (typeof source === "number") copy = clean(String(source)) === String(source) ? source : REDACTED;
    else if (Array.isArray(source)) {
      const array: unknown[] = new Array(source.length);
      source.forEach((element, index) => pending.push({ source: element, target: array, key: index }));
      copy = array;
    } else if (typeof source === "object" && source !== null) {
      const object: Record<string, unknown> = {};
      for (const [name, element] of Object.entries(source)) {
        const cleanName = clean(name);
        // Defined now, filled later: the copy keeps the source's key order.
        defineData(object, cleanName, undefined);
        pending.push({ source: element, target: object, key: cleanName });
      }
      copy = object;
    }
    if (typeof key === "number") (target as unknown[])[key] = copy;
    else defineData(target as Record<string, unknown>, key, copy);
  }
  return root.value as T;
}

/** Collects the values in a URL and header map that may be credentials: userinfo, query values, header values and bearer tokens. */
export function credentialValues(
  url: URL | undefined,
  headers: Record<string, string> | undefined,
): string[] {
  const values: string[] = [];
  if (url) {
    if (url.username) values.push(url.username, safeDecode(url.username));
    if (url.password) values.push(url.password, safeDecode(url.password));
    for (const [, value] of url.searchParams) values.push(value);
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

function buildPattern(secrets: string[]): RegExp | undefined {
  const alternatives: { length: number; source: string }[] = [];
  for (const secret of secrets) {
    alternatives.push({ length: secret.length, source: spelledPattern(secret) });
    const bytes = new TextEncoder().encode(secret);
    alternatives.push({ length: secret.length, source: hexPattern(bytes) });
    for (const core of base64Cores(bytes)) {
      if (core.length >= MIN_ENCODED_LENGTH)
        alternatives.push({ length: secret.length, source: escapeRegExp(core) });
    }
  }
  if (alternatives.length === 0) return undefined;
  // Longest secrets first: one that contains another is replaced whole.
  alternatives.sort((a, b) => b.length - a.length);
  return new RegExp([...new Set(alternatives.map((alternative) => alternative.source))].join("|"), "gu");
}

/** Each character as itself, percent-encoded (any hex case), or JSON/JavaScript escaped. */
function spelledPattern(secret: string): string {
  let source = "";
  for (const character of secret) {
    const forms = [escapeRegExp(character)];
    const bytes = new TextEncoder().encode(character);
    forms.push([...bytes].map((byte) => `%${hexDigits(byte)}`).join(""));
    const code = character.codePointAt(0) ?? 0;
    if (code <= 0xffff) forms.push(`\\\\u${hexDigits(code >> 8)}${hexDigits(code & 0xff)}`);
    if (code <= 0xff) forms.push(`\\\\x${hexDigits(code)}`);
    const shortEscape = SHORT_ESCAPES[character];
    if (shortEscape) forms.push(escapeRegExp(shortEscape));
    if (character === " ") forms.push("\\+");
    source += `(?:${forms.join("|")})`;
  }
  return source;
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "/": "\\/",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
};

/** The bytes as hex digits, each digit in either case. */
function hexPattern(bytes: Uint8Array): string {
  return [...bytes].map(hexDigits).join("");
}

function hexDigits(byte: number): string {
  return byte
    .toString(16)
    .padStart(2, "0")
    .replace(/[a-f]/g, (digit) => `[${digit}${digit.toUpperCase()}]`);
}

/**
 * The part of the base64 (and base64url) text of `bytes` that does not depend on the bytes around
 * them, for each of the three positions they can take in a longer encoded text.
 */
function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (let offset = 0; offset < 3; offset += 1) {
    const padded = new Uint8Array(offset + bytes.length);
    padded.set(bytes, offset);
    const encoded = toBase64(padded).replace(/=+$/, "");
    // Characters whose 6 bits lie wholly inside the secret's bits.
    const first = Math.ceil((offset * 8) / 6);
    const end = Math.floor(((offset + bytes.length) * 8) / 6);
    const core = encoded.slice(first, end);
    cores.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return cores;
}

const BASE64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Written out so the root entry needs neither Buffer nor btoa over a binary string.
function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (let index = 0; index < bytes.length; index += 3) {
    const chunk = ((bytes[index] ?? 0) << 16) | ((bytes[index + 1] ?? 0) << 8) | (bytes[index + 2] ?? 0);
    const count = Math.min(3, bytes.length - index);
    for (let digit = 0; digit <= count; digit += 1) {
      text += BASE64_ALPHABET[(chunk >> (18 - digit * 6)) & 63];
    }
  }
  return text;
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function defineData(target: Record<string, unknown>, key: string, value: unknown): void {
  // Assigning "__proto__" would set the prototype: define it, so that it stays data as JSON.parse keeps it.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
