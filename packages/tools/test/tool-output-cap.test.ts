import { createHash } from "node:crypto";
import { capToolOutput, failureObservation, type Observation, observationText } from "@agent/tools";
import { describe, expect, it } from "vitest";

const ids = { callId: "call_1", toolName: "echo" };

function success(output: unknown): Observation {
  return { type: "observation", ok: true, ...ids, output };
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

describe("observationText", () => {
  it("gives a string output as it is and other outputs as JSON", () => {
    expect(observationText(success("hello"))).toBe("hello");
    expect(observationText(success({ a: 1 }))).toBe('{"a":1}');
    expect(observationText(success(undefined))).toBe("null");
  });

  it("joins an MCP result's text blocks and describes binary blocks without their payload", () => {
    const text = observationText(
      success({
        content: [
          { type: "text", text: "first" },
          { type: "image", mimeType: "image/png", data: "A".repeat(4000) },
          { type: "text", text: "second" },
        ],
        structuredContent: { total: 2 },
      }),
    );
    expect(text).toBe('first\n[image image/png 3000 bytes]\nsecond\n{"total":2}');
  });

  it("gives a failure's code, message and details, not its ids", () => {
    const failure = failureObservation(ids, "invalid_arguments", "bad input", {
      issues: [{ path: ["a"], message: "Expected number" }],
    });
    expect(JSON.parse(observationText(failure))).toEqual({
      error: "invalid_arguments",
      message: "bad input",
      issues: [{ path: ["a"], message: "Expected number" }],
    });
  });
});

describe("capToolOutput", () => {
  it("keeps a short output whole, with its size and no hash (the text is its own reference)", () => {
    const capped = capToolOutput(success("héllo"));
    expect(capped).toEqual({ text: "héllo", truncated: false, chars: 5, bytes: 6 });
  });

  it("cuts a long output to maxChars, marker included, and says what was cut", () => {
    const full = "x".repeat(10_000);
    const capped = capToolOutput(success(full), { maxChars: 1000 });
    expect(capped.truncated).toBe(true);
    expect(capped.text.length).toBeLessThanOrEqual(1000);
    expect(capped.text.startsWith("xxxx")).toBe(true);
    expect(capped.text).toContain("of 10000 characters (10000 bytes, sha256 ");
    expect(capped.text).toContain(sha256(full));
    expect(capped).toMatchObject({ chars: 10_000, bytes: 10_000, sha256: sha256(full) });
    const kept = Number(/showing the first (\d+) of/.exec(capped.text)?.[1]);
    expect(capped.text.slice(0, kept)).toBe(full.slice(0, kept));
  });

  it("takes text already rendered, and never ends on half a surrogate pair", () => {
    const full = "😀".repeat(1000);
    for (const maxChars of [300, 301, 302, 303]) {
      const capped = capToolOutput(full, { maxChars });
      expect(capped.text.isWellFormed()).toBe(true);
      expect(capped.text.length).toBeLessThanOrEqual(maxChars);
    }
  });

  it("counts UTF-8 bytes as Buffer does, lone surrogates included", () => {
    for (const text of ["a", "é", "€", "😀", "a😀b", "\ud800", "x\udc00y", "\ud800\ud800", "😀".repeat(3)]) {
      expect(capToolOutput(text).bytes).toBe(Buffer.byteLength(text));
    }
  });

  it("caps at about 25k tokens by default", () => {
    expect(capToolOutput("y".repeat(100_000)).truncated).toBe(false);
    expect(capToolOutput("y".repeat(100_001)).truncated).toBe(true);
  });

  it("refuses a cap too small to hold its own marker", () => {
    expect(() => capToolOutput("z", { maxChars: 10 })).toThrow(RangeError);
    expect(() => capToolOutput("z", { maxChars: Number.NaN })).toThrow(RangeError);
  });
});
