import { describe, expect, it } from "vitest";
import { sanitizeFailureText } from "../src/failure-message.js";

const KEY = "sk-live-abcdefghijklmnop";

describe("sanitizeFailureText", () => {
  it("removes the key, bearer tokens, api-key headers and URL userinfo", () => {
    const text = sanitizeFailureText(
      `key ${KEY}; Authorization: Bearer other-token-123 {"x-api-key": "zzz-secret"} api_key=abc123 http://me:pw@host/v1`,
      KEY,
    );
    expect(text).not.toContain(KEY);
    expect(text).not.toContain("other-token-123");
    expect(text).not.toContain("zzz-secret");
    expect(text).not.toContain("abc123");
    expect(text).not.toContain("me:pw");
    expect(text).toContain("Bearer [redacted]");
  });

  it("drops control characters (newlines too) and caps the length", () => {
    expect(sanitizeFailureText("a\u001b[31mred\nnext\u0007", "k")).toBe("a [31mred next ");
    const long = sanitizeFailureText("x".repeat(5000), "k");
    expect(long.length).toBeLessThan(1000);
    expect(long.endsWith("…")).toBe(true);
  });

  it("leaves a very short key alone rather than garbling the message", () => {
    expect(sanitizeFailureText("ollama says x", "x")).toBe("ollama says x");
  });
});
