// At a file-size limit, a full disk or a quota, write(2) takes the bytes that fit and returns a
// short count without failing; only the next write fails. A decision cut short that way is not on
// disk: its call must not run, and the line it leaves must not swallow the records after it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, executeToolCall, ToolRegistry } from "@agent/tools";
import { createJsonlEventSink } from "@agent/tools/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { runChildDecisionUnderLimit } from "./child-sink.js";
import { fixedGate } from "./helpers.js";

// While `cut` is set, each writeSync takes at most that many bytes (then, with `failAfterCut`, the
// next write fails), as write(2) does at a limit.
const io = vi.hoisted(() => ({ cut: 0, failAfterCut: false, cutOnce: false }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writeSync = (fd: number, data: string | Uint8Array, offset?: number): number => {
    const bytes = typeof data === "string" ? Buffer.from(data) : Buffer.from(data).subarray(offset ?? 0);
    if (io.cut === 0) return fs.writeSync(fd, bytes);
    if (io.failAfterCut && io.cutOnce) {
      throw Object.assign(new Error("EFBIG: file too large"), { code: "EFBIG" });
    }
    io.cutOnce = true;
    return fs.writeSync(fd, bytes.subarray(0, Math.min(io.cut, bytes.length)));
  };
  return { ...fs, writeSync };
});

const folders: string[] = [];
afterEach(() => {
  Object.assign(io, { cut: 0, failAfterCut: false, cutOnce: false });
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "audit-short-write-"));
  folders.push(folder);
  return folder;
}

function registryWith(execute: () => string): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({ name: "t", description: "", schema: z.object({}), effect: "write", execute }),
  );
  return registry;
}

describe("a decision the file takes only in part", () => {
  it("is refused in a process at its file-size limit, and the next writer ends the cut line", () => {
    const folder = temporaryFolder();
    const path = join(folder, "audit.jsonl");
    // 2,000 bytes of an earlier trail under a limit of 2,048: the decision's line crosses it.
    const earlier = `${"#".repeat(1999)}\n`;
    writeFileSync(path, earlier);

    const child = runChildDecisionUnderLimit(folder, path, 2048);
    expect(child).toEqual({ told: "refused", status: 0 });
    const cut = readFileSync(path, "utf8").slice(earlier.length);
    expect(cut.length).toBe(48);
    expect(cut.endsWith("\n")).toBe(false);

    // A later process, without the limit, ends the cut line before its own record.
    const sink = createJsonlEventSink(path);
    sink.emit({ type: "mcp_closed", at: "2026-12-03T00:00:00.000Z", server: "s", durationMs: 1 });
    sink.close();
    const lines = readFileSync(path, "utf8").slice(earlier.length).split("\n");
    expect(lines).toEqual([cut, expect.any(String), ""]);
    expect(JSON.parse(lines[1] ?? "")).toMatchObject({ type: "mcp_closed", server: "s" });
  });

  it("refuses the call when the rest of its decision cannot be written", async () => {
    const path = join(temporaryFolder(), "audit.jsonl");
    const errors: unknown[] = [];
    const sink = createJsonlEventSink(path, { onError: (error) => errors.push(error) });
    const execute = vi.fn(() => "ran");
    Object.assign(io, { cut: 20, failAfterCut: true });
    const outcome = await executeToolCall(
      { name: "t", input: {} },
      { registry: registryWith(execute), gate: fixedGate("allow"), runId: "r", cwd: "/", events: sink },
    );
    io.cut = 0;
    expect(execute).not.toHaveBeenCalled();
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied" });
    expect(String(errors[0])).toMatch(/only 20 of \d+ bytes reached the audit file \(EFBIG/);

    // The same sink ends the cut line before the next record.
    sink.emit({ type: "mcp_closed", at: "2026-12-03T00:00:00.000Z", server: "s", durationMs: 1 });
    sink.close();
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines[0]).toHaveLength(20);
    expect(
      lines
        .slice(1)
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line).type),
    ).toEqual(["tool_call_finished", "mcp_closed"]);
  });

  it("writes the rest when the file takes it, and the call runs", async () => {
    const path = join(temporaryFolder(), "audit.jsonl");
    const sink = createJsonlEventSink(path);
    const execute = vi.fn(() => "ran");
    io.cut = 7;
    const outcome = await executeToolCall(
      { name: "t", input: {} },
      { registry: registryWith(execute), gate: fixedGate("allow"), runId: "r", cwd: "/", events: sink },
    );
    sink.close();
    io.cut = 0;
    expect(outcome).toMatchObject({ ok: true });
    expect(execute).toHaveBeenCalledOnce();
    const records = readFileSync(path, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.map((record) => [record.type, record.decision])).toEqual([
      ["tool_call_decided", "allow"],
      ["tool_call_finished", undefined],
    ]);
  });
});
