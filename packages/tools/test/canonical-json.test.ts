import { canonicalJson, digestJson } from "@agent/tools";
import { describe, expect, it } from "vitest";

describe("canonicalJson (RFC 8785)", () => {
  it("sorts keys by UTF-16 code units, recursively, without whitespace", () => {
    // RFC 8785 section 3.2.3's sorting example.
    const input = {
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis",
    };
    // Read the keys from the text: Object.keys would move the integer-like "1" first.
    const keys = [...canonicalJson(input).matchAll(/"((?:[^"\\]|\\.)*)":/g)].map((match) =>
      JSON.parse(`"${match[1]}"`),
    );
    expect(keys).toEqual(["\r", "1", "\u0080", "\u00f6", "\u20ac", "\ud83d\ude00", "\ufb33"]);
  });

  it("serializes the RFC's primitive example byte for byte", () => {
    const input = {
      // biome-ignore lint/correctness/noPrecisionLoss: the RFC's own input, parsed as JSON would parse it
      numbers: [333333333.33333329, 1e30, 4.5, 2e-3, 0.000000000000000000000000001],
      string: "\u20ac$\u000f\u000aA'\u0042\u0022\u005c\\\"/",
      literals: [null, true, false],
    };
    expect(canonicalJson(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("writes numbers in ECMAScript shortest form", () => {
    expect(canonicalJson([-0, 1e21, 1e-7, 123456789012345680000, 0.1])).toBe(
      "[0,1e+21,1e-7,123456789012345680000,0.1]",
    );
  });

  it("refuses what JSON cannot represent", () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(/not representable/);
    expect(() => canonicalJson({ a: 1n })).toThrow(/bigint/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/cycle/);
  });

  it("gives equal digests for reordered keys and different ones otherwise", () => {
    expect(digestJson({ a: 1, b: { c: [1, 2] } })).toBe(digestJson({ b: { c: [1, 2] }, a: 1 }));
    expect(digestJson({ a: 1 })).not.toBe(digestJson({ a: 2 }));
    expect(digestJson({ a: 1, b: undefined })).toBe(digestJson({ a: 1 }));
  });
});
