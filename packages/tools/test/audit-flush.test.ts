import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "@agent/tools";
import { createJsonlEventSink } from "@agent/tools/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type ChildEnding, runChildSink } from "./child-sink.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "audit-flush-"));
  folders.push(folder);
  return folder;
}

function closed(index: number): AgentEvent {
  return { type: "mcp_closed", at: "2026-01-01T00:00:00.000Z", server: `s${index}`, durationMs: index };
}

/** Each line's server, or its type for a record without one (a decision). */
function servers(lines: string[]): string[] {
  return lines.map((line) => {
    const record = JSON.parse(line) as { server?: string; type: string };
    return record.server ?? record.type;
  });
}

function decided(): AgentEvent {
  return {
    type: "tool_call_decided",
    at: "2026-01-01T00:00:00.000Z",
    runId: "r",
    callId: "c",
    toolName: "t",
    decision: "allow",
  };
}

function readLines(path: string): string[] {
  const text = readFileSync(path, "utf8");
  return text === "" ? [] : text.trimEnd().split("\n");
}

const FIRST_THREE = ["s0", "s1", "s2"];

describe('the JSONL sink with flush: "batched"', () => {
  it("writes the events of one turn together, in order, after the turn", async () => {
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"), { flush: "batched" });
    for (let index = 0; index < 3; index += 1) sink.emit(closed(index));
    expect(readLines(sink.path)).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(servers(readLines(sink.path))).toEqual(FIRST_THREE);
    sink.close();
  });

  it("writes what is pending on close, and reports later events instead of losing them silently", () => {
    const onError = vi.fn();
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"), { flush: "batched", onError });
    sink.emit(closed(0));
    sink.close();
    expect(servers(readLines(sink.path))).toEqual(["s0"]);
    sink.emit(closed(1));
    expect(onError).toHaveBeenCalledTimes(1);
    sink.close();
  });

  it("writes a large batch at once, within the turn", () => {
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"), { flush: "batched" });
    for (let index = 0; index < 2_000; index += 1) sink.emit(closed(index));
    expect(readLines(sink.path).length).toBeGreaterThan(0);
    sink.close();
    expect(readLines(sink.path)).toHaveLength(2_000);
  });

  it.each<ChildEnding>(["return", "exit", "throw"])("loses nothing when the process ends by %s", (ending) => {
    const lines = runChildSink(temporaryFolder(), { flush: "batched", count: 3, ending });
    expect(servers(lines)).toEqual(FIRST_THREE);
  });

  it("writes an event emitted while the process exits", () => {
    const lines = runChildSink(temporaryFolder(), { flush: "batched", count: 3, ending: "emit-on-exit" });
    expect(servers(lines)).toEqual([...FIRST_THREE, "last"]);
  });

  it("loses the last turn to SIGKILL: the trade-off that keeps it out of the default", () => {
    expect(runChildSink(temporaryFolder(), { flush: "batched", count: 3, ending: "sigkill" })).toEqual([]);
  });
});

describe('the JSONL sink with flush: "sync"', () => {
  it("has written every event before emit returns, so even SIGKILL loses none", () => {
    const lines = runChildSink(temporaryFolder(), { flush: "sync", count: 3, ending: "sigkill" });
    expect(servers(lines)).toEqual(FIRST_THREE);
  });
});

describe('the JSONL sink by default (flush: "decisions")', () => {
  it("writes a decision before emit returns, together with what was queued before it", () => {
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"));
    sink.emit(closed(0));
    expect(readLines(sink.path)).toEqual([]);
    sink.emit(decided());
    expect(servers(readLines(sink.path))).toEqual(["s0", "tool_call_decided"]);
    sink.close();
  });

  it("writes an approval-state event at once", () => {
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"));
    sink.emit({
      type: "approval_requested",
      at: "2026-01-01T00:00:00.000Z",
      runId: "r",
      requestId: "q",
      toolName: "t",
      actionDigest: "d",
      effect: "write",
    });
    expect(servers(readLines(sink.path))).toEqual(["approval_requested"]);
    sink.close();
  });

  it("writes the other events of a turn after the turn", async () => {
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"));
    sink.emit(decided());
    sink.emit(closed(1));
    expect(servers(readLines(sink.path))).toEqual(["tool_call_decided"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(servers(readLines(sink.path))).toEqual(["tool_call_decided", "s1"]);
    sink.close();
  });

  it("loses no decision to SIGKILL right after it was emitted", () => {
    const lines = runChildSink(temporaryFolder(), {
      flush: "decisions",
      count: 3,
      ending: "decide-then-sigkill",
    });
    // The decision and all before it are on disk; only the record after it in the same turn is lost.
    expect(servers(lines)).toEqual([...FIRST_THREE, "tool_call_decided"]);
  });

  it.each<ChildEnding>(["return", "exit", "throw"])("loses nothing when the process ends by %s", (ending) => {
    const lines = runChildSink(temporaryFolder(), { flush: "decisions", count: 3, ending });
    expect(servers(lines)).toEqual(FIRST_THREE);
  });

  it("writes an event emitted while the process exits", () => {
    const lines = runChildSink(temporaryFolder(), { flush: "decisions", count: 3, ending: "emit-on-exit" });
    expect(servers(lines)).toEqual([...FIRST_THREE, "last"]);
  });

  it("removes its exit listener on close", () => {
    const before = process.listenerCount("exit");
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"));
    expect(process.listenerCount("exit")).toBe(before + 1);
    sink.close();
    expect(process.listenerCount("exit")).toBe(before);
  });
});
