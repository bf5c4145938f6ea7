import { createRedactor, escapeControlCharacters } from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";
import { ByteRingBuffer } from "../src/stdio/byte-ring-buffer.js";
import { LineFramer } from "../src/stdio/line-framer.js";

function framer(maxLineBytes: number) {
  const lines: string[] = [];
  const overflows: number[] = [];
  const instance = new LineFramer({
    maxLineBytes,
    onLine: (line) => lines.push(line.toString()),
    onOverflow: (bytes) => overflows.push(bytes),
  });
  return { instance, lines, overflows };
}

describe("LineFramer", () => {
  it("joins lines split across chunks and splits chunks holding several lines", () => {
    const { instance, lines } = framer(100);
    instance.push(Buffer.from('{"a":'));
    instance.push(Buffer.from('1}\n{"b":2}\n{"c"'));
    instance.push(Buffer.from(":3}\n"));
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it("gives up as soon as an unfinished line passes the limit, and ignores the rest", () => {
    const { instance, lines, overflows } = framer(10);
    instance.push(Buffer.from("12345678"));
    instance.push(Buffer.from("90ab"));
    instance.push(Buffer.from("\nok\n"));
    expect(overflows).toEqual([12]);
    expect(lines).toEqual([]);
  });
});

describe("ByteRingBuffer", () => {
  it("keeps only the last bytes and counts all of them", () => {
    const buffer = new ByteRingBuffer(8);
    buffer.push(Buffer.from("hello "));
    buffer.push(Buffer.from("world, again"));
    expect(buffer.toString()).toBe("d, again");
    expect(buffer.totalBytes).toBe(18);
  });

  it("drops a multi-byte character cut at the start", () => {
    const buffer = new ByteRingBuffer(4);
    buffer.push(Buffer.from("aé€")); // 1 + 2 + 3 bytes; the last 4 bytes start inside "é"
    expect(buffer.toString()).toBe("€");
  });
});

describe("text safety", () => {
  it("escapes control and bidi characters but keeps tabs and newlines", () => {
    expect(escapeControlCharacters("a\u001b[31mred\u0007\tb\nc\u202eevil\u0000")).toBe(
      "a\\x1b[31mred\\x07\tb\nc\\u202eevil\\x00",
    );
  });

  it("redacts secrets, URL userinfo and query strings", () => {
    const redact = createRedactor(["Bearer token-123456", "token-123456", "ab"]);
    expect(redact("auth=Bearer token-123456 or token-123456; ab stays")).toBe(
      "auth=[redacted] or [redacted]; ab stays",
    );
    expect(redact("GET https://user:pw@example.com/mcp?key=abc&x=1 failed")).toBe(
      "GET https://[redacted]@example.com/mcp?[redacted] failed",
    );
  });
});
