import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "@agent/tools";
import { createJsonlEventSink } from "@agent/tools/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { boundForAudit } from "../src/audit-bounds.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const failed: AgentEvent = {
  type: "mcp_server_failed",
  at: "2026-01-01T00:00:00.000Z",
  server: "docs",
  code: "x",
  message: "line one\nline two",
};

describe("audit records", () => {
  it("writes one event per line even when a value contains newlines", () => {
    const dir = mkdtempSync(join(tmpdir(), "audit-"));
    dirs.push(dir);
    const sink = createJsonlEventSink(join(dir, "nested", "audit.jsonl"));
    sink.emit(failed);
    sink.emit({ ...failed, server: "other" });
    sink.close();
    const lines = readFileSync(sink.path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] ?? "")).toEqual(failed);
  });

  it("never writes credential-looking fields and bounds large values", () => {
    const event = {
      ...failed,
      headers: { Authorization: "Bearer s3cret" },
      apiKey: "k",
      message: "x".repeat(10_000),
    };
    const bounded = boundForAudit(event as AgentEvent);
    const text = JSON.stringify(bounded);
    expect(text).not.toContain("s3cret");
    expect(bounded.apiKey).toBe("[redacted]");
    expect(bounded.message).toMatchObject({ omitted: "string", bytes: 10_000 });
  });

  it("keeps a run's token counts (numbers), while a string under such a name is still redacted", () => {
    const turn = {
      type: "model_request_finished",
      at: "2026-12-02T10:00:00.000Z",
      runId: "run_1",
      provider: "openai",
      model: "m",
      turn: 1,
      durationMs: 5,
      ok: true,
      inputTokens: 1200,
      outputTokens: 0,
      toolCalls: 0,
    };
    expect(boundForAudit(turn as AgentEvent)).toMatchObject({ inputTokens: 1200, outputTokens: 0 });
    const forged = boundForAudit({
      ...turn,
      inputTokens: "sk-live-123",
      accessToken: 7,
    } as unknown as AgentEvent);
    expect(forged).toMatchObject({ inputTokens: "[redacted]", accessToken: "[redacted]" });
  });

  it("reduces an oversized record to the fields that identify it", () => {
    const event = { ...failed, items: Array.from({ length: 100 }, () => "y".repeat(2_000)) };
    const bounded = boundForAudit(event as AgentEvent);
    expect(bounded).toMatchObject({
      type: "mcp_server_failed",
      server: "docs",
      truncated: { bytes: expect.any(Number) },
    });
    expect(bounded).not.toHaveProperty("items");
  });

  it("reports a write failure through its channel instead of throwing", () => {
    const dir = mkdtempSync(join(tmpdir(), "audit-"));
    dirs.push(dir);
    const onError = vi.fn();
    const sink = createJsonlEventSink(join(dir, "audit.jsonl"), { onError });
    sink.close();
    expect(() => sink.emit(failed)).not.toThrow();
    expect(onError).toHaveBeenCalledTimes(1);
  });
});
