import { describe, expect, it } from "vitest";
import { CodedError, hasErrorBrand, messageOf } from "../src/index.js";

const BRAND = Symbol.for("@agent/base.test.SampleError");

class SampleError extends CodedError<"sample_code"> {
  override readonly name = "SampleError";
}

describe("CodedError", () => {
  it("carries its code, message and cause, and its brand", () => {
    const cause = new Error("under");
    const error = new SampleError(BRAND, "sample_code", "on top", { cause });
    expect(error).toBeInstanceOf(Error);
    expect([error.name, error.code, error.message, error.cause]).toEqual([
      "SampleError",
      "sample_code",
      "on top",
      cause,
    ]);
    expect(hasErrorBrand(error, BRAND)).toBe(true);
    expect(hasErrorBrand(error, Symbol.for("@agent/base.test.Other"))).toBe(false);
  });

  it("sets no cause when none is given, and keeps the brand out of enumeration and JSON", () => {
    const error = new SampleError(BRAND, "sample_code", "plain");
    expect("cause" in error).toBe(false);
    expect(
      Object.getOwnPropertySymbols(error).filter(
        (key) => Object.getOwnPropertyDescriptor(error, key)?.enumerable,
      ),
    ).toEqual([]);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: "sample_code", name: "SampleError" });
  });

  it("recognises an instance branded by another copy (the brand is a registered symbol)", () => {
    const lookAlike = Object.assign(new Error("other copy"), {
      [Symbol.for("@agent/base.test.SampleError")]: true,
    });
    expect(hasErrorBrand(lookAlike, BRAND)).toBe(true);
    for (const value of [null, undefined, "text", 1, {}, new Error("plain")])
      expect(hasErrorBrand(value, BRAND)).toBe(false);
  });
});

describe("messageOf", () => {
  it("is an error's message, or the string form of anything else", () => {
    expect(messageOf(new TypeError("bad"))).toBe("bad");
    expect(messageOf("text")).toBe("text");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(undefined)).toBe("undefined");
  });
});
