import { PassThrough } from "node:stream";
import type { PendingCall } from "@agent/loop";
import type { AgentEvent, ToolCallOutcome } from "@agent/tools";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CliIo } from "../src/terminal/io.js";
import { progressLine } from "../src/terminal/progress-line.js";
import { previewResult, RESULT_PREVIEW_LIMITS } from "../src/terminal/result-preview.js";
import { createRunDisplay } from "../src/terminal/run-display.js";
import { describeUsage } from "../src/terminal/usage-line.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point.
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: our own live-line codes, taken out before checking.
const OWN_CODES = /\r\u001b\[K/g;
const HOSTILE = "done\u001b]0;pwned\u0007\u001b[2J\u009b31m";

interface CapturedIo extends CliIo {
  out(): string;
  err(): string;
}

function captureIo(tty: boolean): CapturedIo {
  const chunks = { out: "", err: "" };
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  const stderr = Object.assign(new PassThrough(), { isTTY: tty });
  stdout.on("data", (chunk: Buffer) => {
    chunks.out += chunk.toString("utf8");
  });
  stderr.on("data", (chunk: Buffer) => {
    chunks.err += chunk.toString("utf8");
  });
  // NO_COLOR: the only escape codes left are the live line's, which only a terminal gets.
  return {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: { NO_COLOR: "1" },
    cwd: "/",
    out: () => chunks.out,
    err: () => chunks.err,
  };
}

const call: PendingCall = {
  toolCallId: "tc_1",
  callId: "call_1",
  toolName: "mcp__s__fetch",
  arguments: "{}",
  status: "done",
};

function ok(output: unknown, toolName = call.toolName): ToolCallOutcome {
  return { type: "observation", ok: true, callId: call.callId, toolName, output };
}

function event(input: Record<string, unknown>): AgentEvent {
  return { at: "2026-12-02T10:00:00.000Z", ...input } as AgentEvent;
}

describe("progress", () => {
  it("shows the tool's name and a bar when the server gives a total, a count when it does not", () => {
    expect(progressLine("mcp__s__fetch", { progress: 3, total: 4 }, "⠋")).toBe(
      `mcp__s__fetch [${"█".repeat(15)}${"░".repeat(5)}]  75%`,
    );
    expect(progressLine("mcp__s__fetch", { progress: 9, total: 4 }, "⠋")).toContain("100%");
    expect(progressLine("mcp__s__fetch", { progress: 37, message: "pages" }, "⠙")).toBe(
      "⠙ mcp__s__fetch 37 pages",
    );
    expect(progressLine("t", { progress: 1, total: 2, message: HOSTILE }, "⠋")).not.toMatch(RAW_CONTROL);
  });

  it("on a terminal, updates one live line in place; elsewhere shows none and writes no escape codes", () => {
    const tty = captureIo(true);
    const display = createRunDisplay(tty);
    display.hooks.onProgress?.({ progress: 1, total: 2, message: "half" }, call);
    display.hooks.onProgress?.({ progress: 2, total: 2 }, call);
    display.hooks.onToolCall?.(call, ok("fine"));
    display.finish();
    expect(tty.err()).toContain(`\r\u001b[K  mcp__s__fetch [${"█".repeat(10)}${"░".repeat(10)}]  50% half`);
    expect(tty.err()).toContain(`\r\u001b[K  mcp__s__fetch [${"█".repeat(20)}] 100%`);
    // The bar is cleared before the call's line: that line starts clean.
    expect(tty.err()).toContain("100%\r\u001b[K  mcp__s__fetch {}");

    const piped = captureIo(false);
    const plain = createRunDisplay(piped);
    plain.hooks.onProgress?.({ progress: 1, total: 2 }, call);
    plain.hooks.onToolCall?.(call, ok("fine"));
    plain.finish();
    expect(piped.err()).not.toContain("█");
    expect(piped.err()).not.toContain("\u001b");
    expect(piped.err()).toContain("mcp__s__fetch");
  });
});

describe("tool results as the run goes", () => {
  it("shows a result's text, capped to its first lines, every line escaped", () => {
    const io = captureIo(false);
    const display = createRunDisplay(io);
    const lines = Array.from({ length: 30 }, (_, index) => `line ${index} ${HOSTILE}`);
    display.hooks.onToolCall?.(call, ok({ content: [{ type: "text", text: lines.join("\n") }] }));
    const shown = io
      .err()
      .split("\n")
      .filter((line) => line.startsWith("    │ "));
    expect(shown).toHaveLength(RESULT_PREVIEW_LIMITS.maxLines + 1);
    expect(shown[0]).toContain("line 0 done");
    expect(shown.at(-1)).toBe(`    │ … ${30 - RESULT_PREVIEW_LIMITS.maxLines} more lines`);
    expect(io.err()).not.toMatch(RAW_CONTROL);
    expect(io.err()).not.toContain("line 29");
  });

  it("cuts a long line, and shows run_command's output as text rather than escaped JSON", () => {
    const [long] = previewResult("x".repeat(1_000));
    expect(long?.length).toBe(RESULT_PREVIEW_LIMITS.maxLineChars);
    expect(long?.endsWith("…")).toBe(true);
    const command = {
      exitCode: 2,
      signal: null,
      timedOut: false,
      stdout: 'a "quoted" line\nsecond\n',
      stderr: "oops\n",
    };
    expect(previewResult(command)).toEqual(['a "quoted" line', "second", "stderr: oops", "(exit code 2)"]);
    expect(previewResult({ answer: 42 })).toEqual(["{", '  "answer": 42', "}"]);
  });
});

describe("tokens and cost", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("counts tokens, and a cost only when the configuration gives prices", () => {
    const usage = { inputTokens: 1_200, outputTokens: 300 };
    expect(describeUsage(usage, undefined)).toBe("1,500 tokens (1,200 in, 300 out)");
    expect(describeUsage(usage, { inputPerMillion: 2, outputPerMillion: 8 })).toBe(
      "1,500 tokens (1,200 in, 300 out) · $0.0048",
    );
  });

  it("shows the tokens used so far while the model thinks again", () => {
    const io = captureIo(true);
    const display = createRunDisplay(io, { prices: { inputPerMillion: 1, outputPerMillion: 1 } });
    display.events.emit(
      event({
        type: "model_request_finished",
        runId: "r",
        turn: 1,
        inputTokens: 1000,
        outputTokens: 500,
        ok: true,
        durationMs: 1,
        provider: "p",
        model: "m",
        toolCalls: 1,
      }),
    );
    display.hooks.onModelRequest?.("started", 2);
    vi.advanceTimersByTime(200);
    display.hooks.onModelRequest?.("finished", 2);
    display.finish();
    expect(io.err()).toContain("thinking… 1,500 tokens (1,000 in, 500 out) · $0.0015 so far");
    expect(io.err().replace(OWN_CODES, "")).not.toMatch(RAW_CONTROL);
  });
});
