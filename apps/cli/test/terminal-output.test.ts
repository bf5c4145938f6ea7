import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import type { ToolCallOutcome } from "@agent/tools";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../src/cli.js";
import { EXIT_CODES, Interrupted, interruptionExitCode } from "../src/exit-codes.js";
import { type CliIo, safeJson, safeLine } from "../src/terminal/io.js";
import { renderOutcome, renderProgress } from "../src/terminal/render-outcome.js";
import { describeServerFailure } from "../src/terminal/server-failure.js";

/** Raw control, DEL, C1 and bidirectional characters, other than newline and tab. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: detecting control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const OSC_TITLE = "\u001b]0;pwned\u0007";
const HOSTILE_URI = `file:///x${OSC_TITLE}\u001b[2J\u202eexe.txt`;
const HOSTILE_MIME = "text/\u001b[31mred\u009b2J\u2066";

interface CapturedIo extends CliIo {
  out(): string;
  err(): string;
}

/** An in-memory CliIo; `tty` makes stderr claim to be a terminal (progress is shown only there). */
function captureIo(options: { tty?: boolean; cwd?: string } = {}): CapturedIo {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: options.tty ?? false });
  const chunks = { out: "", err: "" };
  stdout.on("data", (chunk: Buffer) => {
    chunks.out += chunk.toString("utf8");
  });
  stderr.on("data", (chunk: Buffer) => {
    chunks.err += chunk.toString("utf8");
  });
  return {
    stdout,
    stderr,
    stdin: new PassThrough(),
    // NO_COLOR: only server text could put escape sequences in the output.
    env: { NO_COLOR: "1" },
    cwd: options.cwd ?? tmpdir(),
    out: () => chunks.out,
    err: () => chunks.err,
  };
}

const ids = { callId: "call_1", toolName: "mcp__s__links" };

describe("rendering an outcome for a person", () => {
  it("escapes the URIs and MIME types of resource links and embedded resources", () => {
    const io = captureIo();
    const outcome: ToolCallOutcome = {
      type: "observation",
      ok: true,
      ...ids,
      output: {
        content: [
          { type: "resource_link", name: "link", uri: HOSTILE_URI, mimeType: HOSTILE_MIME },
          { type: "resource", resource: { uri: `${HOSTILE_URI}\nerror: fake`, mimeType: HOSTILE_MIME } },
          { type: `image${OSC_TITLE}`, mimeType: "image/png", data: "AAAA" },
          "not a block\u001b[2J",
        ],
      },
    };
    renderOutcome(io, "run_1", outcome, false);
    expect(io.out().split("\n")).toEqual([
      "[resource_link text/\\x1b[31mred\\x9b2J\\u2066 file:///x\\x1b]0;pwned\\x07\\x1b[2J\\u202eexe.txt]",
      // A newline in a URI must not start a line of its own.
      "[resource file:///x\\x1b]0;pwned\\x07\\x1b[2J\\u202eexe.txt\\nerror: fake text/\\x1b[31mred\\x9b2J\\u2066]",
      "[image\\x1b]0;pwned\\x07 image/png 0 KiB]",
      // Not a block at all: shown as the JSON it is.
      '["not a block\\u001b[2J"]',
      "",
    ]);
    expect(UNSAFE.test(io.out() + io.err())).toBe(false);
  });

  it("escapes a failure's code, message and content blocks on stderr", () => {
    const io = captureIo();
    renderOutcome(
      io,
      "run_1",
      {
        type: "observation",
        ok: false,
        ...ids,
        error: `mcp_tool_error${OSC_TITLE}` as "mcp_tool_error",
        message: `failed \u202ebadly`,
        content: [{ type: "resource_link", name: "l", uri: HOSTILE_URI, mimeType: HOSTILE_MIME }],
      },
      false,
    );
    expect(io.out()).toBe("");
    expect(io.err()).toContain("error: mcp_tool_error\\x1b]0;pwned\\x07: failed \\u202ebadly");
    expect(io.err()).toContain("file:///x\\x1b]0;pwned\\x07");
    expect(UNSAFE.test(io.err())).toBe(false);
  });

  it("escapes a server's progress notification, numbers included", () => {
    const io = captureIo({ tty: true });
    renderProgress(
      io,
      { progress: `3${OSC_TITLE}` as unknown as number, message: "step \u009b2J" },
      `t${OSC_TITLE}`,
    );
    // Not a number: no count is shown for it; the tool's name and the message are escaped.
    expect(io.err()).toBe("  · t\\x1b]0;pwned\\x07 ? step \\x9b2J\n");
    renderProgress(io, { progress: 1, total: 4 }, "mcp__s__long");
    expect(io.err()).toContain(`  mcp__s__long [${"█".repeat(5)}${"░".repeat(15)}]  25%\n`);
  });
});

describe("JSON output", () => {
  it("spells DEL, C1 and format characters as \\u escapes, and parses back to the same value", () => {
    const value = { uri: HOSTILE_URI, mimeType: HOSTILE_MIME, tag: "\u{e0001}", del: "\u007f" };
    const text = safeJson(value);
    expect(UNSAFE.test(text)).toBe(false);
    expect(text).toContain("\\u009b2J\\u2066");
    expect(text).toContain("\\udb40\\udc01");
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe("one-line text", () => {
  it("escapes newlines and tabs on top of control characters", () => {
    expect(safeLine("a\nb\tc\u001b")).toBe("a\\nb\\tc\\x1b");
  });
});

describe("a server's failure reason", () => {
  it("is 'code: message' when there is an error, else the state; escaped either way", () => {
    expect(
      describeServerFailure({ state: "failed", error: { code: "mcp_spawn_failed", message: "no" } }),
    ).toBe("mcp_spawn_failed: no");
    expect(describeServerFailure({ state: "closed", error: undefined })).toBe("closed");
    expect(describeServerFailure({ state: "failed", error: { code: "x", message: OSC_TITLE } })).toBe(
      "x: \\x1b]0;pwned\\x07",
    );
  });
});

describe("signals", () => {
  it("exits 143 for SIGTERM and 130 for SIGINT or any other interruption", () => {
    expect(interruptionExitCode(new Interrupted("SIGTERM"))).toBe(143);
    expect(interruptionExitCode(new Interrupted("SIGINT"))).toBe(EXIT_CODES.interrupted);
    expect(interruptionExitCode(new DOMException("aborted", "AbortError"))).toBe(130);
    // It reads as any abort to code that inspects the reason.
    expect(new Interrupted("SIGTERM")).toMatchObject({ name: "AbortError" });
  });
});

describe("error messages", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it("escape what they quote (an argument, a server's words) before they reach stderr", async () => {
    const root = mkdtempSync(join(tmpdir(), "agent-cli-errors-"));
    roots.push(root);
    // A configuration that loads: without one, approvals commands refuse before the state is read.
    writeFileSync(join(root, "agent.config.json"), "{}");
    const io = captureIo({ cwd: root });
    const code = await runCli(
      ["--state-dir", join(root, "state"), "approvals", "approve", `apr_${OSC_TITLE}\u202e`],
      io,
      new AbortController().signal,
    );
    expect(code).toBe(EXIT_CODES.usage);
    expect(io.err()).toContain('No approval request has id "apr_\\x1b]0;pwned\\x07\\u202e"');
    expect(UNSAFE.test(io.err())).toBe(false);
  });
});
