import { describe, expect, it } from "vitest";
import { copyJson } from "../src/json-copy.js";
import { COPIED_MEMBERS, copyCallRecord, copyObservation, copyPendingCall } from "../src/run-record-copy.js";
import { sampleRunState } from "../src/testing/run-store-contract.js";

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe("copyJson", () => {
  it("gives what a JSON round trip gives, for what JSON treats specially too", () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const values: unknown[] = [
      { a: 1, b: [1, "two", null, true], c: { d: { e: "deep" } } },
      { skipped: undefined, fn: () => 1, kept: 0, nan: Number.NaN, inf: -Infinity },
      [undefined, () => 1, Number.NaN, { x: undefined }],
      { at: new Date("2030-01-02T03:04:05.000Z"), map: new Map([[1, 2]]), point: new Point(1, 2) },
      { toJSON: () => ({ replaced: true }) },
      JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
      Object.assign(Object.create(null), { bare: "object" }),
      "text",
      42,
      null,
    ];
    for (const value of values) expect(copyJson(value)).toStrictEqual(roundTrip(value));
    const protoCopy = copyJson(JSON.parse('{"__proto__": {"polluted": true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(protoCopy)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("detaches every object and array from the original", () => {
    const original = { list: [{ n: 1 }], nested: { inner: { n: 2 } } };
    const copy = copyJson(original);
    original.list[0] = { n: 9 };
    original.nested.inner.n = 9;
    expect(copy).toEqual({ list: [{ n: 1 }], nested: { inner: { n: 2 } } });
  });

  it("reports a cycle as JSON.stringify does, and copies values deeper than its own recursion", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => copyJson(cyclic)).toThrow(TypeError);
    let deep: unknown = "bottom";
    for (let level = 0; level < 1000; level += 1) deep = { level, deep };
    expect(copyJson(deep)).toStrictEqual(roundTrip(deep));
    expect(() => copyJson({ big: 1n })).toThrow(TypeError);
  });
});

describe("field-by-field copies", () => {
  it("keep every member their types have (the member lists are checked against the types when compiled)", () => {
    const state = sampleRunState("run_1");
    const record = {
      ...(state.calls[0] as (typeof state.calls)[number]),
      truncated: true,
      sha256: "b".repeat(64),
    };
    expect(Object.keys(record).sort()).toEqual(Object.keys(COPIED_MEMBERS.callRecord).sort());
    expect(copyCallRecord(record)).toStrictEqual(record);
    const held = {
      ...(state.pending[1] as (typeof state.pending)[number]),
      result: { content: "c", isError: true },
    };
    expect(Object.keys(held).sort()).toEqual(Object.keys(COPIED_MEMBERS.pendingCall).sort());
    expect(copyPendingCall(held)).toStrictEqual(held);
  });
});

describe("copyObservation", () => {
  it("gives what a JSON round trip gives, for the usual success and for every other shape", () => {
    const ids = { type: "observation", callId: "call_1", toolName: "echo" } as const;
    const observations = [
      { ...ids, ok: true, output: "hello" },
      { ...ids, ok: true, output: { content: [{ type: "text", text: "hi" }], nested: [1, null] } },
      { ...ids, ok: true, output: undefined },
      { ...ids, ok: true, output: Number.NaN },
      { ...ids, ok: true, output: "x", extra: "kept, as JSON keeps it" },
      { ...ids, ok: true, output: "x", skipped: undefined },
      { ...ids, ok: 1, output: "x" },
      { ...ids, callId: undefined, ok: true, output: "x" },
      { ...ids, ok: false, error: "tool_error", message: "failed", issues: [{ path: ["a"], message: "m" }] },
      Object.assign(Object.create(null), { ...ids, ok: true, output: "no prototype" }),
      { ...ids, ok: true, output: "x", toJSON: () => ({ replaced: true }) },
      JSON.parse('{"type":"observation","ok":true,"callId":"c","toolName":"t","__proto__":{"output":1}}'),
    ];
    for (const observation of observations) {
      const copy = copyObservation(observation as never);
      expect(copy).toStrictEqual(roundTrip(observation));
      if (typeof observation === "object" && observation !== null) expect(copy).not.toBe(observation);
    }
  });

  it("detaches the output from the original", () => {
    const list = [1];
    const observation = {
      type: "observation",
      ok: true,
      callId: "c",
      toolName: "t",
      output: { list },
    } as const;
    const copy = copyObservation(observation) as { output: { list: number[] } };
    list.push(2);
    expect(copy.output.list).toEqual([1]);
  });
});
