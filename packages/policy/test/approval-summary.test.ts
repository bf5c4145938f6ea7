import { isCutPreview, MAX_INPUT_PREVIEW_CHARS, previewInput, summarizeAction } from "@agent/policy";

const write = { name: "write_file", effect: "write", annotations: undefined } as const;

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

  it("cuts long input value by value, marks each cut and says the preview was cut", () => {
    const input = { text: "y".repeat(10_000) };
    const preview = previewInput(input);
    const full = JSON.stringify(input).length;
    expect(preview.startsWith('{"text":"yyy')).toBe(true);
    expect(preview).toMatch(/y…\(\+\d+ chars\)"\}/);
    expect(preview.endsWith(`(cut: long values shortened, every key kept; ${full} chars in all)`)).toBe(true);
    expect(isCutPreview(preview)).toBe(true);
    expect(isCutPreview(previewInput({ text: "short" }))).toBe(false);
    expect(preview.length).toBeLessThanOrEqual(MAX_INPUT_PREVIEW_CHARS + 100);
  });

  it("never lets a padded argument push another key out of the preview or the summary", () => {
    // The attack: a huge first argument, and the one that matters after it.
    const input = { content: "harmless ".repeat(100_000), path: "/etc/cron.d/backdoor", "z-mode": "0777" };
    for (const text of [previewInput(input), previewInput(input, 200), summarizeAction(write, input)]) {
      expect(text).toContain('"path":"/etc/cron.d/backdoor"');
      expect(text).toContain('"z-mode":"0777"');
      expect(text).toContain('"content":"harmless harmless');
      expect(text).toContain("every key kept");
    }
    // Also inside nested objects and after a long array.
    const nested = { a: { list: Array.from({ length: 1000 }, (_, index) => index), hidden: "still here" } };
    const preview = previewInput(nested, 100);
    expect(preview).toContain('"hidden":"still here"');
    expect(preview).toContain("…(+980 items)");
  });

  it("never cuts a character in half", () => {
    const preview = previewInput({ t: "😀".repeat(100) }, 8);
    // The string is cut to its 16-character floor, which ends between two emoji, never inside one.
    expect(preview.startsWith(`{"t":"${"😀".repeat(8)}…(+184 chars)"}`)).toBe(true);
    const odd = previewInput({ t: `x${"😀".repeat(100)}` }, 8);
    expect(odd.startsWith(`{"t":"x${"😀".repeat(7)}…(+186 chars)"}`)).toBe(true);
  });
});
