import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sha256Hex as nativeSha256 } from "../src/sha256/node.js";
import { sha256Hex as portableSha256 } from "../src/sha256/portable.js";

const reference = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("the portable sha256 (for runtimes without node:crypto)", () => {
  it("matches the FIPS 180-4 examples", () => {
    expect(portableSha256("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(portableSha256("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(portableSha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).toBe(
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
  });

  it("gives Node's digest for every length around the block boundaries and for any UTF-8", () => {
    const alphabet = "aé✓👋\u0000\uffff";
    for (let length = 0; length < 300; length += 1) {
      let text = "";
      for (let index = 0; index < length; index += 1)
        text += alphabet[(index * 7 + length) % alphabet.length];
      expect(portableSha256(text)).toBe(reference(text));
      expect(nativeSha256(text)).toBe(reference(text));
    }
    const large = "x".repeat(1_000_003);
    expect(portableSha256(large)).toBe(reference(large));
  });
});
