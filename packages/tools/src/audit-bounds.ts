import type { AgentEvent } from "./agent-event.js";
import { sha256Hex } from "./canonical-json.js";
import { utf8Length } from "./utf8.js";

/** Size limits for one audit record. */
export interface AuditLimits {
  /** Longer strings are replaced by their size and sha256. */
  maxStringBytes: number;
  /** Longer arrays keep this many items and say how many were dropped. */
  maxArrayItems: number;
  /** A record larger than this keeps only its identifying fields. */
  maxEventBytes: number;
}

/** Defaults for {@link boundForAudit}. */
export const DEFAULT_AUDIT_LIMITS: AuditLimits = Object.freeze({
  maxStringBytes: 2048,
  maxArrayItems: 100,
  maxEventBytes: 16_384,
});

/** Property names whose values are credentials wherever they appear; their values are never written. */
export const SECRET_KEY_PATTERN =
  /authorization|token|secret|password|passwd|api[-_]?key|cookie|credential|private[-_]?key|session[-_]?id/i;

const IDENTIFYING_FIELDS = Object.freeze([
  "type",
  "at",
  "runId",
  "callId",
  "toolName",
  "server",
  "method",
  "requestId",
  "code",
  "ok",
]);

// The fields of the events every call emits (tool_call_*, mcp_request_finished): none of them looks
// like a credential (checked below, once), so a record made of them skips the pattern test per key.
const CALL_EVENT_FIELDS: ReadonlySet<string> = new Set(
  [
    "type",
    "at",
    "runId",
    "callId",
    "toolName",
    "effect",
    "inputBytes",
    "decision",
    "via",
    "isolation",
    "reason",
    "requestId",
    "ok",
    "code",
    "durationMs",
    "server",
    "method",
  ].filter((key) => !SECRET_KEY_PATTERN.test(key)),
);

// Token counts of the run events (model_request_finished, run_finished, mcp_sampling): named like a
// credential ("token"), but a count; kept as long as they are a number, redacted like any other else.
const TOKEN_COUNT_FIELDS: ReadonlySet<string> = new Set(["inputTokens", "outputTokens", "maxTokens"]);

/** Whether the field `key` holding `value` must not be written: a credential by its name. */
function isSecretField(key: string, value: unknown): boolean {
  if (TOKEN_COUNT_FIELDS.has(key) && typeof value === "number") return false;
  return SECRET_KEY_PATTERN.test(key);
}

// Deeper values take the copying path, which treats them exactly as before (a cycle throws there).
const MAX_SCAN_DEPTH = 32;
// The copying path keeps this many levels; deeper values are replaced by a marker, so a hostile
// nesting cannot exhaust the stack of the process writing its audit trail.
const MAX_COPY_DEPTH = 64;

/**
 * Makes an event safe and bounded for a durable audit record: credential-looking fields redacted,
 * large strings replaced by size + sha256, long arrays cut, and an oversized record reduced to the
 * fields that identify it. Always returns a new object.
 */
export function boundForAudit(
  event: AgentEvent,
  limits: AuditLimits = DEFAULT_AUDIT_LIMITS,
): Record<string, unknown> {
  const bounded = boundValue(event, limits) as Record<string, unknown>;
  const text = JSON.stringify(bounded);
  return fitsInBytes(text, limits.maxEventBytes) ? bounded : reduceRecord(bounded, text);
}

/**
 * The JSON text (without a newline) of {@link boundForAudit}'s record for `event`, serialized once.
 * Events with nothing to redact or cut (plain JSON data, no credential-looking key, every string and
 * array within limits: the common case) are serialized as they are, without a bounded copy.
 */
export function serializeForAudit(event: AgentEvent, limits: AuditLimits = DEFAULT_AUDIT_LIMITS): string {
  const bounded = isWithinBounds(event, limits, 0) ? event : boundValue(event, limits);
  const text = JSON.stringify(bounded);
  if (fitsInBytes(text, limits.maxEventBytes)) return text;
  return JSON.stringify(reduceRecord(bounded as Record<string, unknown>, text));
}

function reduceRecord(bounded: Record<string, unknown>, text: string): Record<string, unknown> {
  const kept = Object.fromEntries(
    IDENTIFYING_FIELDS.filter((key) => key in bounded).map((key) => [key, bounded[key]]),
  );
  return { ...kept, truncated: { bytes: utf8Length(text), sha256: sha256Hex(text) } };
}

/**
 * Whether `boundValue` would leave `value` unchanged and JSON would serialize both alike: only plain
 * objects, arrays and JSON primitives qualify; anything else (a Date, a Map, a function, a bigint)
 * takes the copying path.
 */
function isWithinBounds(value: unknown, limits: AuditLimits, depth: number): boolean {
  switch (typeof value) {
    case "string":
      return fitsInBytes(value, limits.maxStringBytes);
    case "number":
    case "boolean":
    case "undefined":
      return true;
    case "object": {
      if (value === null) return true;
      if (depth >= MAX_SCAN_DEPTH) return false;
      if (Array.isArray(value)) {
        if (value.length > limits.maxArrayItems) return false;
        for (const item of value) if (!isWithinBounds(item, limits, depth + 1)) return false;
        return true;
      }
      const prototype: unknown = Object.getPrototypeOf(value);
      if (prototype !== Object.prototype && prototype !== null) return false;
      // for-in rather than Object.keys (no array of keys per object): a plain object's prototype has
      // no enumerable members, and hasOwn keeps a polluted Object.prototype out, as JSON does.
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        if (!CALL_EVENT_FIELDS.has(key) && isSecretField(key, (value as Record<string, unknown>)[key])) {
          return false;
        }
        if (!isWithinBounds((value as Record<string, unknown>)[key], limits, depth + 1)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/** Whether `text` takes at most `limit` UTF-8 bytes; a UTF-16 code unit never takes more than 3. */
function fitsInBytes(text: string, limit: number): boolean {
  if (text.length * 3 <= limit) return true;
  // A code unit takes at least one byte, so a longer text cannot fit.
  return text.length <= limit && utf8Length(text) <= limit;
}

function boundValue(value: unknown, limits: AuditLimits, ancestors: object[] = []): unknown {
  if (typeof value === "string") {
    return fitsInBytes(value, limits.maxStringBytes)
      ? value
      : { omitted: "string", bytes: utf8Length(value), sha256: sha256Hex(value) };
  }
  if (typeof value !== "object" || value === null) return value;
  if (ancestors.includes(value)) throw new TypeError("boundForAudit: the event contains a cycle");
  if (ancestors.length >= MAX_COPY_DEPTH) return { omitted: "nested value", maxDepth: MAX_COPY_DEPTH };
  const inner = [...ancestors, value];
  if (Array.isArray(value)) {
    const items = value.slice(0, limits.maxArrayItems).map((item) => boundValue(item, limits, inner));
    if (value.length > limits.maxArrayItems)
      items.push({ omittedItems: value.length - limits.maxArrayItems });
    return items;
  }
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      isSecretField(key, item) ? "[redacted]" : boundValue(item, limits, inner),
    ]),
  );
}
