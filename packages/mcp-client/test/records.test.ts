import { describe, expect, it } from "vitest";
import { copyWellFormedJson, describeValue, sameJson } from "../src/records.js";

describe("describeValue", () => {
  it("names the kind of a value and quotes at most 40 characters of a string", () => {
    expect([undefined, null, [1], {}, 3, true].map(describeValue)).toEqual([
      "nothing",
      "null",
      "an array",
      "an object",
      "number 3",
      "boolean true",
    ]);
    expect(describeValue("short")).toBe('"short"');
    expect(describeValue("x".repeat(100))).toBe(JSON.stringify(`${"x".repeat(40)}…`));
  });
});

describe("copyWellFormedJson", () => {
  it("copies deeply: changing the copy leaves the original as it was", () => {
    const original = { a: [1, { b: "c" }], d: null };
    const copy = copyWellFormedJson(original);
    expect(copy).toEqual(original);
    (copy?.a[1] as { b: string }).b = "changed";
    expect(original.a[1]).toEqual({ b: "c" });
  });

  it("keeps a __proto__ key as data, as JSON.parse does", () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const copy = copyWellFormedJson(parsed) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it("refuses a value with a lone surrogate in a string or a key", () => {
    expect(copyWellFormedJson({ text: "\uD800" })).toBeUndefined();
    expect(copyWellFormedJson({ "\uDC00": 1 })).toBeUndefined();
    expect(copyWellFormedJson(["ok", "😀"])).toEqual(["ok", "😀"]);
  });
});

describe("sameJson", () => {
  it("compares as JSON text would: key order counts, array order counts", () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { a: 1, b: [1, { c: 2 }] })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(sameJson({ a: null }, { a: undefined })).toBe(false);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });

  it("compares values nested deeper than the call stack could recurse", () => {
    const nest = (depth: number, leaf: unknown): unknown => {
      let value = leaf;
      for (let index = 0; index < depth; index += 1) value = [value];
      return value;
    };
    expect(sameJson(nest(100_000, 1), nest(100_000, 1))).toBe(true);
    expect(sameJson(nest(100_000, 1), nest(100_000, 2))).toBe(false);
  });
});
