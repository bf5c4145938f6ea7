import { createRedactor } from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";

describe("createRedactor at scale", () => {
  it("builds for many long secrets and a huge one, and cleans a megabyte", () => {
    const secrets = Array.from({ length: 60 }, (_, index) => `${"k".repeat(250)}${index}`);
    const huge = JSON.stringify(Array.from({ length: 5_000 }, (_, index) => ({ index })));
    const redact = createRedactor([...secrets, huge]);
    const encoded = Buffer.from(secrets[7] ?? "").toString("base64");
    const text = `${"y".repeat(1_000_000)} %${secrets[5]} ${huge} ${encoded}`;
    const cleaned = redact.secrets(text);
    // A base64 core leaves at most the one character that also depends on the next byte, and padding.
    expect(cleaned.slice(1_000_000)).toMatch(/^ %\[redacted\] \[redacted\] \[redacted\].?=*$/);
  });
});

describe("createRedactor on escape-heavy text", () => {
  it("stays linear with many escapes of one kind", () => {
    const redact = createRedactor(["s3cret-Value"]);
    const text = `${"%41".repeat(200_000)}${encodeURIComponent("s3cret-Value")}`.replace("%73", "s");
    expect(redact.secrets(text).endsWith("[redacted]")).toBe(true);
  });
});
