import { describe, expect, it } from "vitest";
import { isPromiseLike, isRecord } from "../src/index.js";

describe("isRecord", () => {
  it("accepts JSON objects and nothing else", () => {
    expect([{}, { a: 1 }, JSON.parse('{"__proto__":1}')].map(isRecord)).toEqual([true, true, true]);
    expect([null, undefined, [], [1], "x", 1, true].filter(isRecord)).toEqual([]);
  });
});

describe("isPromiseLike", () => {
  it("tells a promise or thenable from a plain answer", () => {
    expect(isPromiseLike(Promise.resolve(1))).toBe(true);
    // biome-ignore lint/suspicious/noThenProperty: a hand-made thenable is what the guard must recognise.
    expect(isPromiseLike({ then: () => undefined })).toBe(true);
    expect([1, "x", null, undefined, {}, []].filter((value) => isPromiseLike(value))).toEqual([]);
  });
});
