import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentEvent, defineTool, executeToolCall, ToolRegistry, transformEvents } from "@agent/tools";
import { createJsonlEventSink } from "@agent/tools/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type ChildEnding, runChildSink } from "./child-sink.js";
import { fixedGate } from "./helpers.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function temporaryFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), "audit-flush-"));
  folders.push(folder);
  return folder;
}

function closed(index: number, server = `s${index}`): AgentEvent {
  return { type: "mcp_closed", at: "2026-01-01T00:00:00.000Z", server, durationMs: index };
}

/** Each line's server, or its type for a record without one (a decision). */
function servers(lines: string[]): string[] {
  return lines.map((line) => {
    const record = JSON.parse(line) as { server?: string; type: string };
    return record.server ?? record.type;
  });
}

function decided(callId = "c"): AgentEvent {
  return {
    type: "tool_call_decided",
    at: "2026-01-01T00:00:00.000Z",
    runId: "r",
    callId,
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

  it("keeps every record whole and in order across many full batches, multi-byte text included", () => {
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"), { flush: "batched" });
    // 3 bytes a character in UTF-8 (and 4 for the emoji's pair): batches fill by bytes, not characters.
    const wide = (index: number): AgentEvent => closed(index, `s${index}-${"審🔒".repeat(40)}`);
    for (let index = 0; index < 3_000; index += 1) sink.emit(wide(index));
    sink.close();
    const lines = readLines(sink.path);
    expect(lines).toHaveLength(3_000);
    expect(lines.map((line) => (JSON.parse(line) as { durationMs: number }).durationMs)).toEqual(
      Array.from({ length: 3_000 }, (_, index) => index),
    );
    expect(JSON.parse(lines[2_999] as string)).toEqual(wide(2_999));
  });

  it("writes a record larger than a whole batch in one piece, after what was queued before it", () => {
    const limits = { maxStringBytes: 1_000_000, maxArrayItems: 100, maxEventBytes: 1_000_000 };
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"), { flush: "batched", limits });
    const large = closed(1, "é".repeat(100_000));
    sink.emit(closed(0));
    sink.emit(large);
    sink.emit(closed(2));
    sink.close();
    const lines = readLines(sink.path);
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[1] as string)).toEqual(large);
    expect((JSON.parse(lines[2] as string) as { server: string }).server).toBe("s2");
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

  it("has a decision from emitDecision on disk once its promise resolves, so SIGKILL then loses none", () => {
    const lines = runChildSink(temporaryFolder(), {
      flush: "decisions",
      count: 3,
      ending: "await-decision-then-sigkill",
    });
    expect(servers(lines)).toEqual([...FIRST_THREE, "tool_call_decided"]);
  });

  it("writes the decisions of one microtask wave together, all before the first promise resolves", async () => {
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"));
    sink.emit(closed(0));
    const written = [0, 1, 2].map((index) => sink.emitDecision?.(decided(`c${index}`)));
    // Nothing is written while the wave is still emitting...
    expect(readLines(sink.path)).toEqual([]);
    const seen: string[][] = [];
    await Promise.all(written.map((promise) => promise?.then(() => seen.push(readLines(sink.path)))));
    // ...and each waiter finds every decision of the wave (and what was queued before) in the file.
    const wave = ["s0", "tool_call_decided", "tool_call_decided", "tool_call_decided"];
    expect(seen.map(servers)).toEqual([wave, wave, wave]);
    sink.close();
  });

  it("keeps the order of records emitted between a batched decision and its write", async () => {
    const sink = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"));
    const written = sink.emitDecision?.(decided());
    sink.emit(closed(1));
    await written;
    expect(servers(readLines(sink.path))).toEqual(["tool_call_decided", "s1"]);
    sink.close();
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

describe("executeToolCall with the default JSONL sink", () => {
  it.each([
    ["the sink itself", false],
    ["a transforming wrapper", true],
  ])(
    "runs no tool before its decision is in the file, with concurrent calls (through %s)",
    async (_, wrap) => {
      const jsonl = createJsonlEventSink(join(temporaryFolder(), "audit.jsonl"));
      const events = wrap ? transformEvents(jsonl, (event) => event) : jsonl;
      const registry = new ToolRegistry();
      // Each call's tool reads the audit file when it runs and reports whether its decision is there.
      registry.register(
        defineTool({
          name: "look",
          description: "",
          schema: z.object({}),
          effect: "read",
          execute: (_input, context) =>
            readLines(jsonl.path).some((line) => {
              const record = JSON.parse(line) as { type: string; callId?: string };
              return record.type === "tool_call_decided" && record.callId === context.callId;
            }),
        }),
      );
      const env = { registry, gate: fixedGate("allow"), runId: "r", cwd: "/work", events };
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_unused, index) =>
          executeToolCall({ name: "look", input: {}, callId: `c${index}` }, env),
        ),
      );
      expect(
        outcomes.map((outcome) => outcome.type === "observation" && outcome.ok && outcome.output),
      ).toEqual(Array.from({ length: 20 }, () => true));
      jsonl.close();
    },
  );
});

describe("executeToolCall with a sink whose decision write fails", () => {
  it("refuses the call (audit_failed), runs nothing and still reports the call's end", async () => {
    const registry = new ToolRegistry();
    const execute = vi.fn(() => "ran");
    registry.register(
      defineTool({ name: "act", description: "", schema: z.object({}), effect: "read", execute }),
    );
    const records: AgentEvent[] = [];
    const events = {
      emit: (event: AgentEvent) => void records.push(event),
      emitDecision: () => Promise.reject(new Error("disk full")),
    };
    const outcome = await executeToolCall(
      { name: "act", input: {}, callId: "c1" },
      { registry, gate: fixedGate("allow"), runId: "r", cwd: "/work", events },
    );
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied", reason: "audit_failed: disk full" });
    expect(execute).not.toHaveBeenCalled();
    // The decision was not written: the outcome, the call's only record, opens its trail.
    expect(records.map((record) => record.type)).toEqual(["tool_call_finished"]);
    expect(records[0]).toMatchObject({ effect: "read", inputBytes: 2, code: "policy_denied" });
  });
});
