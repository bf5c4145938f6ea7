import { canonicalJson, digestJson, sha256Hex } from "@agent/tools";
import { describe, expect, it } from "vitest";

/** The IEEE 754 double with these 64 bits, given as 16 hex digits. */
function doubleFromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

// RFC 8785 appendix B: IEEE 754 bit patterns and their canonical serialization.
const RFC_8785_NUMBERS: [bits: string, expected: string][] = [
  ["0000000000000000", "0"],
  ["8000000000000000", "0"],
  ["0000000000000001", "5e-324"],
  ["8000000000000001", "-5e-324"],
  ["7fefffffffffffff", "1.7976931348623157e+308"],
  ["ffefffffffffffff", "-1.7976931348623157e+308"],
  ["4340000000000000", "9007199254740992"],
  ["c340000000000000", "-9007199254740992"],
  ["4430000000000000", "295147905179352830000"],
  ["44b52d02c7e14af5", "9.999999999999997e+22"],
  ["44b52d02c7e14af6", "1e+23"],
  ["44b52d02c7e14af7", "1.0000000000000001e+23"],
  ["444b1ae4d6e2ef4e", "999999999999999700000"],
  ["444b1ae4d6e2ef4f", "999999999999999900000"],
  ["444b1ae4d6e2ef50", "1e+21"],
  ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
  ["3eb0c6f7a0b5ed8d", "0.000001"],
  ["41b3de4355555553", "333333333.3333332"],
  ["41b3de4355555554", "333333333.33333325"],
  ["41b3de4355555555", "333333333.3333333"],
  ["41b3de4355555556", "333333333.3333334"],
  ["41b3de4355555557", "333333333.33333343"],
  ["becbf647612f3696", "-0.0000033333333333333333"],
  ["43143ff3c1cb0959", "1424953923781206.2"],
];

describe("canonicalJson (RFC 8785)", () => {
  it.each(RFC_8785_NUMBERS)("serializes the double %s as %s", (bits, expected) => {
    expect(canonicalJson(doubleFromBits(bits))).toBe(expected);
  });

  it.each([
    ["7fffffffffffffff", "NaN"],
    ["7ff0000000000000", "Infinity"],
    ["fff0000000000000", "-Infinity"],
  ])("rejects the double %s (%s), which JSON cannot represent", (bits) => {
    expect(() => canonicalJson(doubleFromBits(bits))).toThrow(TypeError);
  });

  it("sorts keys by UTF-16 code units, as the RFC's section 3.2.3 example shows", () => {
    const input = JSON.parse(
      String.raw`{
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\ud83d\ude00": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis"
      }`,
    );
    // JS objects enumerate integer-like keys ("1") first, so the order is read from the serialized text.
    const serializedValues = [...canonicalJson(input).matchAll(/:"([^"]*)"/g)].map((match) => match[1]);
    expect(serializedValues).toEqual([
      "Carriage Return",
      "One",
      "Control",
      "Latin Small Letter O With Diaeresis",
      "Euro Sign",
      "Emoji: Grinning Face",
      "Hebrew Letter Dalet With Dagesh",
    ]);
    expect(canonicalJson(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("produces the RFC's section 3.2.2 example output byte for byte", () => {
    const input = JSON.parse(
      String.raw`{
        "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
        "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
        "literals": [null, true, false]
      }`,
    );
    expect(canonicalJson(input)).toBe(
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it("ignores key order and drops undefined keys, recursively", () => {
    const a = { b: [1, { y: 2, x: 1 }], a: "s", gone: undefined };
    const b = { a: "s", b: [1, { x: 1, y: 2 }] };
    expect(canonicalJson(a)).toBe('{"a":"s","b":[1,{"x":1,"y":2}]}');
    expect(digestJson(a)).toBe(digestJson(b));
  });

  it("hashes with sha256 over UTF-8 (FIPS 180-2 test vector)", () => {
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(digestJson({ b: 1, a: "€" })).toBe(sha256Hex('{"a":"€","b":1}'));
  });

  it("writes numbers in ECMAScript shortest form", () => {
    expect(canonicalJson([-0, 1e21, 1e-7, 123456789012345680000, 0.1])).toBe(
      "[0,1e+21,1e-7,123456789012345680000,0.1]",
    );
  });

  it("refuses what JSON cannot represent faithfully", () => {
    expect(() => canonicalJson({ a: 1n })).toThrow(/bigint/);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => canonicalJson(cycle)).toThrow(/cycle/);
    // JSON would flatten these to {}: two different maps would share a digest.
    expect(() => canonicalJson({ a: new Map([["k", 1]]) })).toThrow(/Map/);
    expect(() => canonicalJson(new Set([1]))).toThrow(/Set/);
    expect(() => canonicalJson(new (class Point {})())).toThrow(/Point/);
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson(Object.create(null))).toBe("{}");
  });

  it("refuses lone surrogates, which are not valid Unicode (I-JSON)", () => {
    expect(() => canonicalJson("\ud800")).toThrow(/surrogate/);
    expect(() => canonicalJson({ "\udc00": 1 })).toThrow(/surrogate/);
    expect(canonicalJson("\ud83d\ude00")).toBe('"\ud83d\ude00"');
  });
});
