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
});
