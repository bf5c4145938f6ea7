// What counts as "the secret appears" is a security boundary: a server that knows a credential
// (it is given its env and headers) may echo it in any encoding. Change the forms matched here only
// with a test that shows the new form is still caught.
import { decodeEscapes } from "./decode-escapes.js";

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
  /**
   * A redactor for text that arrives in pieces (streamed model output): a secret split across two
   * pieces is still removed, because the end of what was pushed is held back until it can no longer
   * be the start of a secret.
   */
  stream(): RedactingStream;
  /**
   * Adds a secret known only once running (an OAuth token obtained or refreshed): from now on it is
   * removed wherever this redactor is used. Secrets are never forgotten.
   */
  learn(secret: string): void;
}

/** Text redacted as it arrives: see {@link Redactor.stream}. */
export interface RedactingStream {
  /** Adds `text`; returns what can be shown now, redacted (possibly less than was pushed, or nothing). */
  push(text: string): string;
  /** Returns everything still held back, redacted; the stream starts empty again. */
  end(): string;
}

// The most characters of text one character of a secret can take in any searched form: a BMP
// character percent-encoded as three UTF-8 bytes (`%E2%82%AC`); JSON escapes, hex and base64 take fewer.
const MAX_ENCODED_CHARS_PER_UNIT = 9;

/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /** Secrets shorter than this are left alone (default {@link MIN_SECRET_LENGTH}). */
  minLength?: number;
}

/**
 * Builds a redactor for the given secrets. Each is found in its own form and as a server might
 * echo it: percent-encoded (any mix of escaped and plain characters, either hex case), JSON or
 * JavaScript escaped (`\u0041`, `\x41`, `\"`), hex (either case) and base64 or base64url, also
 * when embedded in a longer base64 text (all three alignments). Every match is replaced, overlapping
 * ones as one. The search is plain substring search, so its cost grows with the text, not worse.
 */
export function createRedactor(secrets: Iterable<string>, options: RedactorOptions = {}): Redactor {
  const minLength = options.minLength ?? MIN_SECRET_LENGTH;
  const known = new SecretSet([...secrets].filter((secret) => secret.length >= minLength));
  const removeSecrets = (text: string): string =>
    known.values.length === 0 ? text : replaceRanges(text, findSecrets(text, known.values, known.forms));
  const redact = ((text: string): string =>
    removeSecrets(text)
      .replace(URL_USERINFO, `$1${REDACTED}@`)
      .replace(URL_QUERY, `$1?${REDACTED}`)) as Redactor;
  return Object.defineProperties(redact, {
    secrets: { value: removeSecrets },
    hasSecrets: { get: () => known.values.length > 0 },
    stream: { value: (): RedactingStream => redactingStream(known) },
    learn: {
      value: (secret: string): void => {
        if (secret.length >= minLength) known.add(secret);
      },
    },
  });
}

// The secrets a redactor removes, with their searched forms; it only ever grows.
class SecretSet {
  values: string[] = [];
  forms: SecretForms = { literal: [], hex: [] };
  /** The longest text any form of any secret can take. */
  longest = 0;

  constructor(secrets: readonly string[]) {
    for (const secret of secrets) this.add(secret);
  }

  add(secret: string): void {
    if (this.values.includes(secret)) return;
    this.values = [...this.values, secret];
    this.forms = secretForms(this.values);
    this.longest = Math.max(this.longest, secret.length * MAX_ENCODED_CHARS_PER_UNIT);
  }
}

// Holds back the last `longest - 1` characters (every form of every secret is at most `longest` long),
// and never cuts inside a match: a secret that starts in what is shown ends inside what was pushed.
function redactingStream(known: SecretSet): RedactingStream {
  let pending = "";
  return {
    push(text) {
      if (known.values.length === 0 && pending === "") return text;
      pending += text;
      const ranges = findSecrets(pending, known.values, known.forms);
      let cut = Math.max(0, pending.length - (known.longest - 1));
      for (let moved = true; moved; ) {
        moved = false;
        for (const [start, end] of ranges) {
          if (start < cut && end > cut) {
            cut = start;
            moved = true;
          }
        }
      }
      const shown = replaceRanges(
        pending.slice(0, cut),
        ranges.filter(([, end]) => end <= cut),
      );
      pending = pending.slice(cut);
      return shown;
    },
    end() {
      const rest = replaceRanges(pending, findSecrets(pending, known.values, known.forms));
      pending = "";
      return rest;
    },
  };
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
      for (let index = 0; index < source.length; index += 1) {
        pending.push({ source: source[index], target: array, key: index });
      }
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

/** The forms of the secrets that are searched as written: case-sensitive, and hex in lowercase. */
interface SecretForms {
  literal: string[];
  hex: string[];
}

function secretForms(secrets: string[]): SecretForms {
  const literal = new Set<string>();
  const hex = new Set<string>();
  for (const secret of secrets) {
    literal.add(secret);
    const bytes = new TextEncoder().encode(secret);
    hex.add([...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join(""));
    for (const core of base64Cores(bytes)) if (core.length >= MIN_ENCODED_LENGTH) literal.add(core);
  }
  return { literal: [...literal], hex: [...hex] };
}

/** Every `[start, end)` range of `text` that spells a secret, in any of the forms it is searched in. */
function findSecrets(text: string, secrets: string[], forms: SecretForms): [number, number][] {
  const ranges: [number, number][] = [];
  for (const form of forms.literal) addOccurrences(text, form, ranges);
  // Hex in either case: A-F lowered keeps every offset (no other character changes).
  if (HEX_RUN.test(text)) {
    const lowered = text.replace(/[A-F]/g, (digit) => digit.toLowerCase());
    for (const form of forms.hex) addOccurrences(lowered, form, ranges);
  }
  if (ESCAPE_CHARACTER.test(text)) {
    const decoded = decodeEscapes(text);
    for (const secret of secrets) {
      const found: [number, number][] = [];
      addOccurrences(decoded.text, secret, found);
      for (const [start, end] of found) {
        ranges.push([decoded.sources[start] ?? start, decoded.sources[end] ?? text.length]);
      }
    }
  }
  return ranges;
}

const HEX_RUN = /[0-9a-fA-F]{8}/;
const ESCAPE_CHARACTER = /[%\\]/;

function addOccurrences(text: string, form: string, ranges: [number, number][]): void {
  if (form.length === 0) return;
  for (let index = text.indexOf(form); index !== -1; index = text.indexOf(form, index + 1)) {
    ranges.push([index, index + form.length]);
  }
}

/** `text` with the ranges replaced by the marker, overlapping or adjacent ranges as one. */
function replaceRanges(text: string, ranges: [number, number][]): string {
  if (ranges.length === 0) return text;
  ranges.sort((a, b) => a[0] - b[0]);
  let result = "";
  let position = 0;
  let current: [number, number] | undefined;
  for (const range of ranges) {
    if (current && range[0] <= current[1]) {
      current[1] = Math.max(current[1], range[1]);
      continue;
    }
    if (current) {
      result += text.slice(position, current[0]) + REDACTED;
      position = current[1];
    }
    current = [range[0], range[1]];
  }
  if (current) result += text.slice(position, current[0]) + REDACTED;
  return result + text.slice(current ? current[1] : position);
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
