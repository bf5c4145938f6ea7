import { type AgentEvent, DEFAULT_AUDIT_LIMITS, serializeForAudit } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { boundForAudit } from "../src/audit-bounds.js";

const base = { type: "mcp_server_failed", at: "2026-01-01T00:00:00.000Z", server: "docs", code: "x" };
const limit = DEFAULT_AUDIT_LIMITS.maxStringBytes;

// biome-ignore lint/suspicious/noSparseArray: a hole must serialize as JSON does, as null.
const SPARSE = [1, , undefined, null];

/** Events around every limit and every rule; serializeForAudit must write exactly boundForAudit's record. */
const EVENTS: Record<string, Record<string, unknown>> = {
  plain: { ...base, message: "line one\nline two" },
  "nested credentials": {
    ...base,
    detail: { headers: { Authorization: "Bearer s3cret" }, list: [{ apiKey: 1 }] },
  },
  "string at the byte limit": { ...base, message: "x".repeat(limit) },
  "string one byte over": { ...base, message: "x".repeat(limit + 1) },
  // "€" takes 3 bytes: 682 of them and "aa" make exactly 2048, 683 of them one byte more.
  "multi-byte string at the limit": { ...base, message: `${"€".repeat(682)}aa` },
  "multi-byte string over the limit": { ...base, message: "€".repeat(683) },
  "lone surrogates": { ...base, message: "\ud800".repeat(700) },
  "array at the item limit": { ...base, items: Array.from({ length: 100 }, (_, index) => index) },
  "array over the item limit": { ...base, items: Array.from({ length: 101 }, (_, index) => index) },
  "a Date, a Map and undefined": { ...base, when: new Date(0), map: new Map([["a", 1]]), gone: undefined },
  "a null-prototype object": { ...base, detail: Object.assign(Object.create(null), { a: "b" }) },
  "sparse and undefined items": { ...base, items: SPARSE },
  "oversized record": { ...base, items: Array.from({ length: 100 }, () => "y".repeat(2_000)) },
  "deep nesting": { ...base, detail: JSON.parse(`${"[".repeat(40)}"deep"${"]".repeat(40)}`) },
};

describe("serializeForAudit", () => {
  it.each(Object.entries(EVENTS))("writes what boundForAudit bounds: %s", (_name, event) => {
    const text = serializeForAudit(event as unknown as AgentEvent);
    expect(text).toBe(JSON.stringify(boundForAudit(event as unknown as AgentEvent)));
    expect(text).not.toContain("s3cret");
  });

  it("throws for a cycle, as boundForAudit does", () => {
    const event: Record<string, unknown> = { ...base };
    event.self = event;
    expect(() => serializeForAudit(event as unknown as AgentEvent)).toThrow();
  });
});
