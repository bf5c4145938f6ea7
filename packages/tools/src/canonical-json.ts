// DO NOT CHANGE CASUALLY. Tool fingerprints and action digests (and so every stored approval) are
// sha256 over this encoding (RFC 8785). A change to key order, number or string formatting changes
// every digest; the RFC's test vectors in test/canonical-json.test.ts must keep passing. If it must
// change, that is a new digest version: bump ACTION_DIGEST_VERSION in @agent/policy (its fixed
// digests fail until you do), with a changeset, so approvals stored under the old encoding are
// voided with the reason `digest_version_changed` instead of silently never matching again.
import { sha256Hex as hashText } from "#sha256";

/** A value that survives a JSON round trip unchanged. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * Serializes a value as RFC 8785 (JSON Canonicalization Scheme) text: object keys sorted by UTF-16
 * code units, no whitespace, numbers in ECMAScript shortest form, strings escaped as JSON.stringify does.
 * Keys whose value is `undefined` are omitted, as JSON.stringify omits them. Anything JSON cannot
 * represent faithfully throws: non-finite numbers, bigint, functions, symbols, cycles, lone
 * surrogates (not valid Unicode, so not I-JSON), objects JSON would flatten to `{}` (a Map, a
 * Set, a class instance without `toJSON`), since two different ones would serialize alike, and
 * values nested more than {@link MAX_CANONICAL_DEPTH} levels deep (a TypeError, not a stack overflow).
 */
export function canonicalJson(value: unknown): string {
  return serialize(value, new Set());
}

/** The lowercase hex sha256 of a string's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return hashText(text);
}

/** The sha256 of a value's canonical JSON: equal for equal values whatever their key order. */
export function digestJson(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

function serialize(value: unknown, ancestors: Set<object>): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "string":
      return serializeString(value);
    case "number":
      if (!Number.isFinite(value))
        throw new TypeError(`canonicalJson: ${value} is not representable in JSON`);
      // ECMAScript's Number-to-String is exactly the serialization RFC 8785 prescribes (-0 becomes 0).
      return JSON.stringify(value);
    case "object":
      return serializeObject(value, ancestors);
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} is not representable in JSON`);
  }
}

/** The deepest nesting {@link canonicalJson} serializes; deeper values throw a TypeError. */
export const MAX_CANONICAL_DEPTH = 512;

function serializeObject(value: object, ancestors: Set<object>): string {
  if (ancestors.has(value)) throw new TypeError("canonicalJson: the value contains a cycle");
  if (ancestors.size >= MAX_CANONICAL_DEPTH) {
    throw new TypeError(`canonicalJson: the value is nested more than ${MAX_CANONICAL_DEPTH} levels deep`);
  }
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      let text = "[";
      for (let index = 0; index < value.length; index += 1) {
        const item: unknown = value[index];
        if (index > 0) text += ",";
        text += item === undefined ? "null" : serialize(item, ancestors);
      }
      return `${text}]`;
    }
    const toJson = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJson === "function") return serialize(toJson.call(value), ancestors);
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      const kind = (prototype as { constructor?: { name?: string } }).constructor?.name ?? "non-plain";
      throw new TypeError(`canonicalJson: a ${kind} object has no faithful JSON form`);
    }
    // The default sort compares UTF-16 code units, which is the order RFC 8785 section 3.2.3 requires.
    const keys = Object.keys(value).sort();
    let text = "{";
    for (const key of keys) {
      const item: unknown = (value as Record<string, unknown>)[key];
      if (item === undefined) continue;
      if (text.length > 1) text += ",";
      text += `${serializeString(key)}:${serialize(item, ancestors)}`;
    }
    return `${text}}`;
  } finally {
    ancestors.delete(value);
  }
}

function serializeString(value: string): string {
  if (!value.isWellFormed()) throw new TypeError("canonicalJson: a string contains a lone surrogate");
  return JSON.stringify(value);
}
