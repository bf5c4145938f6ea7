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
  // The scan's depth limit (32) on each side: below it the record is written as it is, at it copied.
  "objects 31 deep": { ...base, detail: nested(31) },
  "objects 32 deep": { ...base, detail: nested(32) },
  "objects 33 deep": { ...base, detail: nested(33) },
  "the executor's decision": {
    type: "tool_call_decided",
    runId: "run_1",
    callId: "call_0f8e2c1a-5b7d-4e3f-9a1b-2c3d4e5f6a7b",
    toolName: "mcp__bench__echo",
    decision: "allow",
    via: "policy",
    isolation: "none",
    effect: "external",
    inputBytes: 13,
    at: "2026-01-01T00:00:00.000Z",
  },
  "the executor's outcome": {
    type: "tool_call_finished",
    runId: "run_1",
    callId: "call_1",
    toolName: "mcp__bench__echo",
    ok: true,
    durationMs: 0.123,
    server: "bench",
    request: { server: "bench", method: "tools/call", durationMs: 0.0405, ok: true },
    at: "2026-01-01T00:00:00.000Z",
  },
  "strings JSON escapes": {
    ...base,
    message: 'quote " backslash \\ tab \t nul \u0000 unit \u001f del \u007f ls \u2028 ps \u2029',
    emoji: "🙂 pair and a lone \udc00 low and \ud83d high",
    key: { 'a"b': 1, "new\nline": 2, "\\": 3, é: 4 },
  },
  "numbers JSON writes its own way": {
    ...base,
    values: [Number.NaN, Number.POSITIVE_INFINITY, -0, 1e21, 0.1 + 0.2, 5e-7, -1.5, 2 ** 53],
    nan: Number.NaN,
    negativeZero: -0,
  },
  "integer-like keys come first, ascending": {
    ...base,
    detail: { b: 1, 10: "ten", 2: "two", a: [true, false] },
  },
  "empty object and array": { ...base, detail: {}, items: [] },
  "token counts and token strings": {
    ...base,
    inputTokens: 10,
    outputTokens: "12",
    usage: { maxTokens: 3, accessToken: 4 },
  },
  "an own toJSON that is a value": { ...base, detail: { toJSON: "not a function" } },
  "an own toJSON function": { ...base, detail: { toJSON: () => "replaced" } },
  "a class instance": {
    ...base,
    detail: new (class Point {
      x = 1;
      y = 2;
    })(),
  },
  "an array with an extra property": { ...base, items: Object.assign([1, 2], { extra: "ignored" }) },
  "a symbol key and a symbol value": { ...base, detail: { [Symbol("s")]: 1, kept: 1, symbol: Symbol("v") } },
  "a function value": { ...base, detail: { run() {}, kept: 1 } },
  "a getter": {
    ...base,
    detail: Object.defineProperty({}, "computed", { enumerable: true, get: () => "from getter" }),
  },
  "a non-enumerable property": {
    ...base,
    detail: Object.defineProperty({ shown: 1 }, "hidden", { value: 2 }),
  },
  "a record just under the size limit": { ...base, items: fill(16_384 - 200) },
  "a record just over the size limit": { ...base, items: fill(16_384 + 200) },
};

/** Objects `depth` levels deep below the record. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: "x" };
  for (let level = 1; level < depth; level += 1) value = { level, inner: value };
  return value;
}

/** Strings within the string limit, about `bytes` of them together. */
function fill(bytes: number): string[] {
  return Array.from({ length: Math.ceil(bytes / 1000) }, () => "z".repeat(1000));
}

// Characters a generated string is made of: plain ones and every kind JSON escapes or must keep whole.
const ALPHABET = [
  "a",
  "Z",
  "0",
  " ",
  '"',
  "\\",
  "\n",
  "\u0001",
  "\u007f",
  "é",
  "€",
  "🙂",
  "\ud800",
  "\udfff",
  "\u2028",
];
const KEYS = [
  "type",
  "message",
  "detail",
  "items",
  "token",
  "apiKey",
  "inputTokens",
  "10",
  "2",
  "x y",
  'q"',
  "toJSON",
  "server",
  "durationMs",
];

/** A small deterministic generator (mulberry32), so that a failure can be replayed. */
function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function generatedValue(random: () => number, depth: number): unknown {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const kind = Math.floor(random() * (depth > 4 ? 5 : 8));
  switch (kind) {
    case 0:
      return Array.from({ length: Math.floor(random() * (random() < 0.05 ? 3000 : 12)) }, () =>
        pick(ALPHABET),
      ).join("");
    case 1:
      return pick([0, -0, 1, -7, 0.5, 1e-7, 1e300, Number.NaN, Number.POSITIVE_INFINITY, random() * 1000]);
    case 2:
      return pick([true, false, null, undefined]);
    case 3:
      return random() < 0.5 ? new Date(0) : "\u0000";
    case 4:
      return pick(["", "plain", "x".repeat(2048), "x".repeat(2049), "€".repeat(683)]);
    case 5:
    case 6: {
      const object: Record<string, unknown> = {};
      for (let count = Math.floor(random() * 5); count > 0; count -= 1) {
        object[pick(KEYS)] = generatedValue(random, depth + 1);
      }
      return object;
    }
    default:
      return Array.from({ length: Math.floor(random() * (random() < 0.05 ? 105 : 5)) }, () =>
        generatedValue(random, depth + 1),
      );
  }
}

describe("serializeForAudit", () => {
  it.each(Object.entries(EVENTS))("writes what boundForAudit bounds: %s", (_name, event) => {
    const text = serializeForAudit(event as unknown as AgentEvent);
    expect(text).toBe(JSON.stringify(boundForAudit(event as unknown as AgentEvent)));
    expect(text).not.toContain("s3cret");
  });

  it("writes what boundForAudit bounds for 3,000 generated records, with default and small limits", () => {
    const random = randomSource(24);
    const small = { maxStringBytes: 16, maxArrayItems: 3, maxEventBytes: 600 };
    for (let index = 0; index < 3_000; index += 1) {
      const event = { ...base, detail: generatedValue(random, 0), more: generatedValue(random, 0) };
      const limits = index % 3 === 0 ? small : DEFAULT_AUDIT_LIMITS;
      const record = event as unknown as AgentEvent;
      expect(serializeForAudit(record, limits)).toBe(JSON.stringify(boundForAudit(record, limits)));
    }
  });

  it("throws for a bigint, as boundForAudit does (JSON has none)", () => {
    const event = { ...base, detail: { big: 10n } } as unknown as AgentEvent;
    expect(() => boundForAudit(event)).toThrow(TypeError);
    expect(() => serializeForAudit(event)).toThrow(TypeError);
  });

  it("throws for a cycle, as boundForAudit does", () => {
    const event: Record<string, unknown> = { ...base };
    event.self = event;
    expect(() => serializeForAudit(event as unknown as AgentEvent)).toThrow();
  });
});
