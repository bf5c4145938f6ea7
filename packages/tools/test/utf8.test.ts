import { describe, expect, it } from "vitest";
import { utf8Length } from "../src/utf8.js";

describe("utf8Length", () => {
  it("counts UTF-8 bytes as Buffer.byteLength does, lone surrogates as U+FFFD", () => {
    const samples = [
      "",
      "ascii",
      "é",
      "€",
      "日本語",
      "😀",
      "a😀b",
      "\ud83d",
      "\ude00x",
      "x\ud83d",
      "\u0000\u007f\u0080\u07ff\u0800\uffff",
    ];
    for (const text of samples) expect(utf8Length(text), JSON.stringify(text)).toBe(Buffer.byteLength(text));
  });

  it("counts long texts whose first non-ASCII character comes late, or at either end", () => {
    const ascii = "x".repeat(10_000);
    const samples = [
      ascii,
      `${ascii}é`,
      `é${ascii}`,
      `${ascii}😀${ascii}\ud83d`,
      `${ascii}\ude00`,
      `\u0080${ascii}`,
    ];
    for (const text of samples) expect(utf8Length(text)).toBe(Buffer.byteLength(text));
  });
});
