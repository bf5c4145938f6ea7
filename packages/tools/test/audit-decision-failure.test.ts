// A decision the JSONL sink could not put on disk must not admit its call: emitDecision rejects,
// and executeToolCall refuses the call (audit_failed) with the tool never run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentEvent,
  defineTool,
  type EventSink,
  executeToolCall,
  ToolRegistry,
  transformEvents,
} from "@agent/tools";
import { createJsonlEventSink, type JsonlEventSink } from "@agent/tools/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { fixedGate } from "./helpers.js";

// writeSync fails while `failWrites` is set: what a write at a full disk or a file-size limit does
// once the bytes that fit are written (the short write before it: audit-short-write.test.ts).
const io = vi.hoisted(() => ({ failWrites: false }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  return {
    ...fs,
    writeSync: (...args: Parameters<typeof fs.writeSync>) => {
      if (io.failWrites)
        throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      return fs.writeSync(...args);
    },
  };
});

const folders: string[] = [];
afterEach(() => {
  io.failWrites = false;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function openSink(): JsonlEventSink {
  const folder = mkdtempSync(join(tmpdir(), "audit-decision-failure-"));
  folders.push(folder);
  return createJsonlEventSink(join(folder, "audit.jsonl"), { onError: () => undefined });
}

function callThrough(events: EventSink) {
  const execute = vi.fn(() => "ran");
  const registry = new ToolRegistry();
  registry.register(
    defineTool({ name: "t", description: "", schema: z.object({}), effect: "read", execute }),
  );
  const env = { registry, gate: fixedGate("allow"), runId: "r", cwd: "/work", events };
  return { execute, call: () => executeToolCall({ name: "t", input: {} }, env) };
}

/** A call through `events` while every write fails: refused as unrecorded, its tool never run. */
async function expectRefusedWhenWritesFail(events: EventSink): Promise<void> {
  const { execute, call } = callThrough(events);
  io.failWrites = true;
  expect(await call()).toMatchObject({
    ok: false,
    reason: "audit_failed: ENOSPC: no space left on device",
  });
  expect(execute).not.toHaveBeenCalled();
}

describe("a decision the JSONL sink cannot write", () => {
  it("refuses the call when the audit file is already closed", async () => {
    const sink = openSink();
    sink.close();
    const { execute, call } = callThrough(sink);
    expect(await call()).toMatchObject({
      ok: false,
      error: "policy_denied",
      reason: "audit_failed: the audit file is closed",
    });
    expect(execute).not.toHaveBeenCalled();
  });

  it("refuses the call when its write fails, and every concurrent call whose decision was in that write", async () => {
    const sink = openSink();
    const { execute, call } = callThrough(sink);
    io.failWrites = true;
    const outcomes = await Promise.all([call(), call(), call()]);
    expect(
      outcomes.map((outcome) => outcome.type === "observation" && !outcome.ok && outcome.reason),
    ).toEqual(Array.from({ length: 3 }, () => "audit_failed: ENOSPC: no space left on device"));
    expect(execute).not.toHaveBeenCalled();
    // Once writes succeed again, calls run as before.
    io.failWrites = false;
    expect(await call()).toMatchObject({ ok: true, output: "ran" });
    expect(execute).toHaveBeenCalledTimes(1);
    sink.close();
  });

  it("refuses the call when its decision is the one that fills the batch and that write fails", async () => {
    const sink = openSink();
    // Records of this turn that wait for its end, just under the 64 KiB a batch holds before it is
    // written at once: the decision takes the pending text past it.
    const server = `s${"x".repeat(200)}`;
    let pending = 0;
    while (pending < 64 * 1024 - 150) {
      const record = { type: "mcp_closed", at: "2026-12-03T00:00:00.000Z", server, durationMs: 1 } as const;
      sink.emit(record);
      pending += JSON.stringify(record).length + 1;
    }
    await expectRefusedWhenWritesFail(sink);
  });

  it("refuses the call when its decision cannot be serialized (sync mode and the default)", async () => {
    for (const flush of ["decisions", "sync"] as const) {
      const folder = mkdtempSync(join(tmpdir(), "audit-decision-failure-"));
      folders.push(folder);
      const jsonl = createJsonlEventSink(join(folder, "audit.jsonl"), { flush, onError: () => undefined });
      // A cycle, which no audit record can hold.
      const cyclic = transformEvents(jsonl, (event) => {
        if (event.type !== "tool_call_decided") return event;
        const copy = { ...event } as AgentEvent & { self?: unknown };
        copy.self = copy;
        return copy;
      });
      const { execute, call } = callThrough(cyclic);
      expect(await call()).toMatchObject({ ok: false, error: "policy_denied" });
      expect(execute).not.toHaveBeenCalled();
      jsonl.close();
    }
  });

  it("refuses the call in sync mode when the write fails", async () => {
    const folder = mkdtempSync(join(tmpdir(), "audit-decision-failure-"));
    folders.push(folder);
    const sink = createJsonlEventSink(join(folder, "audit.jsonl"), {
      flush: "sync",
      onError: () => undefined,
    });
    await expectRefusedWhenWritesFail(sink);
    sink.close();
  });
});
