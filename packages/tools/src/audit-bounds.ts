import { sha256Hex } from "./canonical-json.js";
import type { AgentEvent } from "./events.js";

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
export const DEFAULT_AUDIT_LIMITS: AuditLimits = {
  maxStringBytes: 2048,
  maxArrayItems: 100,
  maxEventBytes: 16_384,
};

/** Property names whose values are credentials wherever they appear; their values are never written. */
export const SECRET_KEY_PATTERN =
  /authorization|token|secret|password|passwd|api[-_]?key|cookie|credential|private[-_]?key|session[-_]?id/i;

const IDENTIFYING_FIELDS = [
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
];

/**
 * Makes an event safe and bounded for a durable audit record: credential-looking fields redacted,
 * large strings replaced by size + sha256, long arrays cut, and an oversized record reduced to the
 * fields that identify it.
 */
export function boundForAudit(
  event: AgentEvent,
  limits: AuditLimits = DEFAULT_AUDIT_LIMITS,
): Record<string, unknown> {
  const bounded = boundValue(event, limits) as Record<string, unknown>;
  const bytes = Buffer.byteLength(JSON.stringify(bounded));
  if (bytes <= limits.maxEventBytes) return bounded;
  const kept = Object.fromEntries(
    IDENTIFYING_FIELDS.filter((key) => key in bounded).map((key) => [key, bounded[key]]),
  );
  return { ...kept, truncated: { bytes, sha256: sha256Hex(JSON.stringify(bounded)) } };
}

function boundValue(value: unknown, limits: AuditLimits): unknown {
  if (typeof value === "string") {
    const bytes = Buffer.byteLength(value);
    return bytes <= limits.maxStringBytes ? value : { omitted: "string", bytes, sha256: sha256Hex(value) };
  }
  if (Array.isArray(value)) {
    const items = value.slice(0, limits.maxArrayItems).map((item) => boundValue(item, limits));
    if (value.length > limits.maxArrayItems)
      items.push({ omittedItems: value.length - limits.maxArrayItems });
    return items;
  }
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        SECRET_KEY_PATTERN.test(key) ? "[redacted]" : boundValue(item, limits),
      ]),
    );
  }
  return value;
}
