import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createJsonlEventSink } from "@agent/tools/node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AuditEntry, auditLogPath, followAuditLog, readAuditLog } from "../src/state/index.js";

let stateDir: string;
let file: string;

beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), "agent-audit-"));
  file = auditLogPath(stateDir);
});

afterEach(() => {
  rmSync(stateDir, { recursive: true, force: true });
});

async function collect(entries: AsyncIterable<AuditEntry>): Promise<AuditEntry[]> {
  const all: AuditEntry[] = [];
  for await (const entry of entries) all.push(entry);
  return all;
}

const event = (type: string, extra: Record<string, unknown> = {}): string =>
  `${JSON.stringify({ type, at: "2030-01-01T00:00:00.000Z", ...extra })}\n`;

describe("readAuditLog", () => {
  it("reads what the JSONL sink writes, and flags corrupt lines with their numbers", async () => {
    const sink = createJsonlEventSink(file);
    sink.emit({ type: "mcp_closed", at: "2030-01-01T00:00:00.000Z", server: "docs", durationMs: 3 });
    sink.close();
    appendFileSync(file, '{"type":"mcp_clo\n\n[1,2]\n{"no_type":true}\r\n');
    appendFileSync(file, event("mcp_closed", { server: "émoji ✓" }));
    appendFileSync(file, '{"type":"half');

    expect(await collect(readAuditLog(file))).toEqual([
      {
        type: "record",
        line: 1,
        record: { type: "mcp_closed", at: "2030-01-01T00:00:00.000Z", server: "docs", durationMs: 3 },
      },
      { type: "corrupt", line: 2, text: '{"type":"mcp_clo', reason: "not valid JSON" },
      { type: "corrupt", line: 4, text: "[1,2]", reason: "not a JSON object" },
      { type: "corrupt", line: 5, text: '{"no_type":true}', reason: 'no string "type" field' },
      {
        type: "record",
        line: 6,
        record: { type: "mcp_closed", at: "2030-01-01T00:00:00.000Z", server: "émoji ✓" },
      },
      {
        type: "corrupt",
        line: 7,
        text: '{"type":"half',
        reason: "not valid JSON (the last line has no newline yet)",
      },
    ]);
  });

  it("yields nothing for a file that does not exist yet", async () => {
    expect(await collect(readAuditLog(join(stateDir, "missing.jsonl")))).toEqual([]);
  });

  it("keeps line numbers across read chunks and multi-byte characters at their edges", async () => {
    const lines = Array.from({ length: 3000 }, (_, index) =>
      event("tool_call_started", { n: index, pad: "é".repeat(40) }),
    );
    writeFileSync(file, lines.join(""));
    const entries = await collect(readAuditLog(file));
    expect(entries).toHaveLength(3000);
    expect(entries.every((entry, index) => entry.type === "record" && entry.line === index + 1)).toBe(true);
    expect(entries[2999]).toMatchObject({ record: { n: 2999, pad: "é".repeat(40) } });
  });
});

describe("followAuditLog", () => {
  it("yields lines appended after it starts, whole lines only, until aborted", async () => {
    writeFileSync(file, event("old"));
    const controller = new AbortController();
    const seen: AuditEntry[] = [];
    const following = (async () => {
      for await (const entry of followAuditLog(file, { signal: controller.signal, pollIntervalMs: 5 })) {
        seen.push(entry);
      }
    })();
    // Once the marker is seen, the follower has passed the lines that were already there.
    appendFileSync(file, event("marker"));
    await until(() => seen.length === 1);
    appendFileSync(file, '{"type":"new_1",');
    await delay(50);
    expect(seen).toHaveLength(1);
    appendFileSync(file, '"at":"x"}\nnot json\n');
    await until(() => seen.length === 3);
    controller.abort();
    await following;
    expect(seen).toEqual([
      { type: "record", line: 2, record: { type: "marker", at: "2030-01-01T00:00:00.000Z" } },
      { type: "record", line: 3, record: { type: "new_1", at: "x" } },
      { type: "corrupt", line: 4, text: "not json", reason: "not valid JSON" },
    ]);
  });

  it("waits for a missing file, reads from the start when asked, and stops on abort", async () => {
    const controller = new AbortController();
    const seen: AuditEntry[] = [];
    const following = (async () => {
      for await (const entry of followAuditLog(file, {
        signal: controller.signal,
        pollIntervalMs: 5,
        fromStart: true,
      })) {
        seen.push(entry);
      }
    })();
    await delay(20);
    writeFileSync(file, event("first") + event("second"));
    await until(() => seen.length === 2);
    controller.abort();
    await following;
    expect(seen.map((entry) => entry.type === "record" && entry.record.type)).toEqual(["first", "second"]);
  });

  it("starts over when the file is truncated", async () => {
    writeFileSync(file, event("a") + event("b"));
    const controller = new AbortController();
    const seen: AuditEntry[] = [];
    const following = (async () => {
      for await (const entry of followAuditLog(file, { signal: controller.signal, pollIntervalMs: 5 })) {
        seen.push(entry);
      }
    })();
    appendFileSync(file, event("marker"));
    await until(() => seen.length === 1);
    writeFileSync(file, event("c"));
    await until(() => seen.length === 2);
    controller.abort();
    await following;
    expect(seen.map((entry) => [entry.line, entry.type === "record" && entry.record.type])).toEqual([
      [3, "marker"],
      [1, "c"],
    ]);
  });
});

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves once `condition` holds; fails the test if it does not within five seconds. */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("the condition did not hold within 5 s");
    await delay(5);
  }
}
