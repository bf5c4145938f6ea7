import { MAX_INPUT_PREVIEW_CHARS, previewInput, summarizeAction } from "@agent/policy";
import { describe, expect, it } from "vitest";

describe("summarizeAction", () => {
  it("names the tool, its effect and the input on one line", () => {
    const tool = { name: "mcp__docs__search", effect: "external", annotations: undefined } as const;
    expect(summarizeAction(tool, { q: "x" })).toBe('mcp__docs__search (external) {"q":"x"}');
  });

  it("appends the tool author's annotations, marked unverified", () => {
    const tool = {
      name: "mcp__docs__search",
      effect: "external",
      annotations: { readOnlyHint: true, destructiveHint: false, title: "Search docs" },
    } as const;
    expect(summarizeAction(tool, { q: "x" })).toBe(
      'mcp__docs__search (external) {"q":"x"} — server hints (unverified): readOnlyHint, destructiveHint=false, title="Search docs"',
    );
  });

  it("stays one bounded line whatever the input and annotations contain", () => {
    const tool = {
      name: "mcp__docs__search",
      effect: "external",
      annotations: { "evil\nkey": "x".repeat(5000), title: "line1\nline2" },
    } as const;
    const summary = summarizeAction(tool, { q: "a\nb".repeat(10_000) });
    expect(summary).not.toContain("\n");
    expect(summary.length).toBeLessThan(600);
    expect(summary).toContain("…");
  });

  it("escapes characters that could disguise the text shown to the operator", () => {
    const tool = { name: "write_file", effect: "write", annotations: undefined } as const;
    const summary = summarizeAction(tool, { path: "safe\u202etxt.exe", esc: "\u001b[2J" });
    expect(summary).toContain("\\u202e");
    expect(summary).toContain("\\u001b");
    expect(summary.includes("\u202e") || summary.includes("\u001b")).toBe(false);
  });
});

describe("previewInput", () => {
  it("is the canonical JSON of the input when it is short", () => {
    expect(previewInput({ b: 1, a: [true, null] })).toBe('{"a":[true,null],"b":1}');
  });

  it("cuts long input to the bound, with an ellipsis marker giving the full length", () => {
    const input = { text: "y".repeat(10_000) };
    const preview = previewInput(input);
    const full = JSON.stringify(input).length;
    expect(preview.startsWith('{"text":"yyy')).toBe(true);
    expect(preview.endsWith(`… (${full} chars in all)`)).toBe(true);
    expect(preview.length).toBeLessThanOrEqual(MAX_INPUT_PREVIEW_CHARS + 40);
  });

  it("never cuts a character in half", () => {
    const preview = previewInput({ t: "😀".repeat(100) }, 8);
    // {"t":" is 6 characters, then a whole emoji is 2 more; the 9th code unit would start the next one.
    expect(preview.startsWith('{"t":"😀…')).toBe(true);
    const cutInPair = previewInput({ t: "😀".repeat(100) }, 9);
    expect(cutInPair.startsWith('{"t":"😀…')).toBe(true);
  });
});
