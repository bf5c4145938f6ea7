import { describe, expect, it } from "vitest";
import { storyLine } from "../src/commands/audit-story.js";

const at = "2026-12-02T10:00:00.000Z";
const call = { runId: "run_1", callId: "call_1", toolName: "mcp__s__fetch" };

describe("the audit trail as a story", () => {
  it("tells each step of a run in one sentence: prompt, model turn, call decided, held, approved, finished, stop", () => {
    const steps = [
      { type: "run_started", runId: "run_1", provider: "openai", model: "gpt-x", maxTurns: 20 },
      {
        type: "model_request_finished",
        runId: "run_1",
        turn: 1,
        ok: true,
        durationMs: 1234,
        inputTokens: 100,
        outputTokens: 20,
        toolCalls: 1,
      },
      { type: "tool_call_decided", ...call, decision: "ask", requestId: "apr_1" },
      { type: "run_waiting", runId: "run_1", turn: 1, requestIds: ["apr_1"] },
      {
        type: "approval_granted",
        runId: "run_1",
        requestId: "apr_1",
        toolName: call.toolName,
        actionDigest: "d",
        decidedBy: "ada",
      },
      { type: "run_resumed", runId: "run_1", turn: 1, toolSetChanged: false },
      { type: "tool_call_decided", ...call, decision: "allow", via: "approval" },
      { type: "tool_call_finished", ...call, ok: true, durationMs: 12 },
      { type: "run_continued", runId: "run_1", turn: 2, promptChars: 11, maxTurns: 22 },
      {
        type: "run_finished",
        runId: "run_1",
        status: "completed",
        turns: 3,
        inputTokens: 300,
        outputTokens: 40,
      },
    ];
    expect(steps.map((step) => storyLine({ at, ...step }))).toEqual([
      "prompt: run run_1 started on openai gpt-x (up to 20 turns)",
      "model turn 1 asked for 1 tool call · 100 in, 20 out tokens · 1.2 s",
      "call mcp__s__fetch (call_1) held for approval, request apr_1",
      "run run_1 waits for approval: apr_1",
      "request apr_1 approved by ada (mcp__s__fetch)",
      "run run_1 resumed after turn 1",
      "call mcp__s__fetch (call_1) allowed by approval",
      "call mcp__s__fetch (call_1) finished ok in 12 ms",
      "prompt: a follow-up of 11 characters, run run_1 goes on after turn 2",
      "run run_1 stopped: completed after 3 turns · 300 in, 40 out tokens",
    ]);
  });

  it("tells a call's task step by step, and a call resumed from it by another process", () => {
    const task = { ...call, server: "s", taskId: "task-7" };
    const steps = [
      { type: "mcp_task", ...task, step: "created", status: "working", pollIntervalMs: 20 },
      { type: "run_resumed", runId: "run_1", turn: 1, toolSetChanged: false },
      { type: "tool_call_resumed", ...call },
      { type: "mcp_task", ...task, step: "resumed" },
      { type: "mcp_task", ...task, step: "status", status: "completed" },
      { type: "mcp_task", ...task, step: "cancel_sent", ok: false },
    ];
    expect(steps.map((step) => storyLine({ at, ...step }))).toEqual([
      "call mcp__s__fetch (call_1): task task-7 on s created, working",
      "run run_1 resumed after turn 1",
      "call mcp__s__fetch (call_1) resumed where its stopped process left it (decided then, not asked again)",
      "call mcp__s__fetch (call_1): task task-7 on s followed again",
      "call mcp__s__fetch (call_1): task task-7 on s completed",
      "call mcp__s__fetch (call_1): task task-7 on s given up: tasks/cancel sent (not acknowledged)",
    ]);
  });

  it("keeps the sandbox's host and verdict, and says why a call failed or was held by the flow guard", () => {
    expect(
      storyLine({
        at,
        type: "sandbox_connection",
        subject: "mcp:s",
        host: "example.com",
        port: 443,
        allowed: false,
      }),
    ).toBe("sandbox: mcp:s refused a connection to example.com:443");
    expect(
      storyLine({
        at,
        type: "sandbox_connection",
        subject: "run_command",
        host: "registry.npmjs.org",
        port: 443,
        allowed: true,
      }),
    ).toBe("sandbox: run_command allowed to connect to registry.npmjs.org:443");
    expect(
      storyLine({
        at,
        type: "tool_call_finished",
        ...call,
        ok: false,
        code: "mcp_tool_error",
        durationMs: 5,
      }),
    ).toBe("call mcp__s__fetch (call_1) failed: mcp_tool_error after 5 ms");
    expect(
      storyLine({
        at,
        type: "tool_call_decided",
        ...call,
        decision: "ask",
        reason: "tainted_flow",
        requestId: "apr_2",
      }),
    ).toContain("held for approval by the flow guard");
    expect(
      storyLine({
        at,
        type: "model_request_finished",
        runId: "r",
        turn: 2,
        ok: false,
        code: "rate_limited",
        status: 429,
        durationMs: 40,
        inputTokens: 0,
        outputTokens: 0,
        toolCalls: 0,
      }),
    ).toBe("model turn 2 failed: rate_limited (HTTP 429), after 40 ms");
  });

  it("leaves the plumbing (handshakes, listings, each MCP request, a grant consumed) to --verbose", () => {
    for (const type of [
      "mcp_initialized",
      "mcp_tools_listed",
      "mcp_request_finished",
      "mcp_closed",
      "tool_call_started",
      "approval_consumed",
      "approval_requested",
    ]) {
      expect(storyLine({ at, type, server: "s" }), type).toBeUndefined();
    }
  });
});
