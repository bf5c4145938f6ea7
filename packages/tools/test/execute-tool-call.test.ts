import {
  createMemoryEventSink,
  defineTool,
  type ExecutionEnvironment,
  executeToolCall,
  type ToolContext,
  ToolRegistry,
  toolFailure,
} from "@agent/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { fixedGate } from "./helpers.js";

function setup(execute: (input: { q: string }, context: ToolContext) => unknown, gate = fixedGate("allow")) {
  const registry = new ToolRegistry();
  const spy = vi.fn(execute);
  registry.register(
    defineTool({
      name: "search",
      description: "",
      schema: z.object({ q: z.string() }),
      effect: "read",
      execute: spy,
    }),
  );
  const events = createMemoryEventSink();
  const env: ExecutionEnvironment = {
    registry,
    gate,
    runId: "run_1",
    cwd: "/work",
    events,
    timeoutMs: 1_000,
  };
  return { env, spy, events, gate };
}

describe("executeToolCall", () => {
  it("runs an allowed call and returns its output as an observation", async () => {
    const { env, spy } = setup(({ q }, context) => `${q}@${context.runId}/${context.cwd}`);
    const outcome = await executeToolCall({ name: "search", input: { q: "x" }, callId: "c1" }, env);
    expect(outcome).toEqual({
      type: "observation",
      ok: true,
      callId: "c1",
      toolName: "search",
      output: "x@run_1//work",
    });
    expect(spy).toHaveBeenCalledTimes(1);
  });

  it("records an allowed call as two records, fields in the trail's order and `at` last", async () => {
    const { env, events } = setup(({ q }) => q);
    await executeToolCall({ name: "search", input: { q: "x" }, callId: "c1" }, env);
    const [decided, finished] = events.events;
    expect(Object.keys(decided ?? {})).toEqual([
      "type",
      "runId",
      "callId",
      "toolName",
      "decision",
      "via",
      "isolation",
      "effect",
      "inputBytes",
      "at",
    ]);
    expect(decided).toMatchObject({ type: "tool_call_decided", inputBytes: 9, at: expect.any(String) });
    expect(Object.keys(finished ?? {})).toEqual([
      "type",
      "runId",
      "callId",
      "toolName",
      "ok",
      "durationMs",
      "at",
    ]);
    expect(finished).not.toBe(decided);
  });

  it("answers unknown_tool without asking the gate", async () => {
    const { env, gate } = setup(() => "");
    const outcome = await executeToolCall({ name: "missing", input: {} }, env);
    expect(outcome).toMatchObject({ ok: false, error: "unknown_tool" });
    expect(gate.asked).toEqual([]);
  });

  it("executes nothing and asks nothing when the input fails the schema", async () => {
    const { env, spy, gate } = setup(() => "");
    const outcome = await executeToolCall({ name: "search", input: { q: 1 } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "invalid_arguments", issues: [{ path: ["q"] }] });
    // The one-line message a run shows names the field, not only "does not match".
    expect(outcome).toMatchObject({
      message: expect.stringMatching(/^The input does not match the tool's schema: q: .+\.$/),
    });
    expect(spy).not.toHaveBeenCalled();
    expect(gate.asked).toEqual([]);
  });

  it("never executes a denied call", async () => {
    const { env, spy } = setup(() => "", fixedGate("deny"));
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied", reason: "not today" });
    expect(spy).not.toHaveBeenCalled();
  });

  it("never executes a held call and says which request holds it", async () => {
    const { env, spy } = setup(() => "", fixedGate("waiting"));
    const outcome = await executeToolCall({ name: "search", input: { q: "x" }, callId: "c1" }, env);
    expect(outcome).toEqual({
      type: "waiting",
      callId: "c1",
      toolName: "search",
      requestId: "apr_1",
      reason: "approval_required",
    });
    expect(spy).not.toHaveBeenCalled();
  });

  it("fails closed when the gate itself fails", async () => {
    const { env, spy } = setup(() => "");
    env.gate = { admit: () => Promise.reject(new Error("store offline")) };
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({
      ok: false,
      error: "policy_denied",
      reason: "gate_failed: store offline",
    });
    expect(spy).not.toHaveBeenCalled();
  });

  it("returns timeout at once while the tool still hangs, and aborts the tool's signal", async () => {
    let seen: AbortSignal | undefined;
    const { env } = setup((_, context) => {
      seen = context.signal;
      return new Promise(() => {});
    });
    env.timeoutMs = 20;
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "timeout" });
    expect(seen?.aborted).toBe(true);
  });

  it("gives a tool that reads its signal only after the timeout one that is already aborted", async () => {
    let context: ToolContext | undefined;
    const { env } = setup((_, given) => {
      context = given;
      return new Promise(() => {});
    });
    env.timeoutMs = 20;
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "timeout" });
    expect(context?.signal).toBeInstanceOf(AbortSignal);
    expect(context?.signal.aborted).toBe(true);
    expect(context?.cancellation?.aborted).toBe(true);
  });

  it("tells a tool watching context.cancellation once, together with its signal", async () => {
    const heard: string[] = [];
    const controller = new AbortController();
    const { env } = setup((_, context) => {
      context.signal.addEventListener("abort", () => heard.push("signal"));
      const listener = () => heard.push("cancellation");
      context.cancellation?.addEventListener("abort", listener);
      context.cancellation?.addEventListener("abort", listener);
      setTimeout(() => controller.abort(), 5);
      return new Promise(() => {});
    });
    env.signal = controller.signal;
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "cancelled" });
    expect(heard).toEqual(["cancellation", "signal"]);
  });

  it("lets the tool remove a cancellation listener before the abort", async () => {
    const heard: string[] = [];
    const { env } = setup((_, context) => {
      const listener = () => heard.push("removed");
      context.cancellation?.addEventListener("abort", listener);
      context.cancellation?.removeEventListener("abort", listener);
      context.cancellation?.addEventListener("abort", () => heard.push("kept"));
      return new Promise(() => {});
    });
    env.timeoutMs = 10;
    await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(heard).toEqual(["kept"]);
  });

  it("calls cancellation listeners in the order they were added, also after one was removed", async () => {
    const heard: string[] = [];
    const { env } = setup((_, context) => {
      const first = () => heard.push("first");
      context.cancellation?.addEventListener("abort", first);
      context.cancellation?.addEventListener("abort", () => heard.push("second"));
      context.cancellation?.removeEventListener("abort", first);
      context.cancellation?.addEventListener("abort", () => heard.push("third"));
      return new Promise(() => {});
    });
    env.timeoutMs = 10;
    await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(heard).toEqual(["second", "third"]);
  });

  it("returns cancelled when the caller aborts, even if the tool ignores its signal", async () => {
    const controller = new AbortController();
    const { env } = setup(() => {
      setTimeout(() => controller.abort(), 5);
      return new Promise(() => {});
    });
    env.signal = controller.signal;
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "cancelled" });
  });

  it("reports a thrown error by message only, without a stack, and swallows a late rejection", async () => {
    const { env } = setup(() => {
      throw new Error("disk full");
    });
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "tool_error", message: "The tool failed: disk full" });
    expect(JSON.stringify(outcome)).not.toContain("at ");

    const late = setup(() => new Promise((_, reject) => setTimeout(() => reject(new Error("late")), 30)));
    late.env.timeoutMs = 5;
    expect(await executeToolCall({ name: "search", input: { q: "x" } }, late.env)).toMatchObject({
      error: "timeout",
    });
    await new Promise((resolve) => setTimeout(resolve, 40));
  });

  it("turns a returned tool failure into a failed observation with its details", async () => {
    const { env } = setup(() => toolFailure("mcp_error", "boom", { code: -32000 }));
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(outcome).toMatchObject({ ok: false, error: "mcp_error", message: "boom", code: -32000 });
  });

  it("emits every step in order, with the decision and a duration", async () => {
    const { env, events } = setup(() => "ok");
    await executeToolCall({ name: "search", input: { q: "x" }, callId: "c1" }, env);
    // Two records a call (vocabulary version 2): the decision opens the call's trail.
    expect(events.events.map((event) => event.type)).toEqual(["tool_call_decided", "tool_call_finished"]);
    expect(events.events[0]).toMatchObject({
      runId: "run_1",
      callId: "c1",
      toolName: "search",
      effect: "read",
      inputBytes: 9,
      decision: "allow",
      via: "policy",
      isolation: "none",
    });
    expect(events.events[1]).not.toHaveProperty("effect");
    const finished = events.ofType("tool_call_finished")[0];
    expect(finished).toMatchObject({ ok: true });
    expect(finished?.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(finished?.at ?? "")).not.toBeNaN();
  });

  it("passes progress reports to the caller while the call runs", async () => {
    const { env } = setup((_, context) => {
      context.reportProgress({ progress: 1, total: 2 });
      return "done";
    });
    const progress = vi.fn();
    env.onProgress = progress;
    await executeToolCall({ name: "search", input: { q: "x" }, callId: "c1" }, env);
    expect(progress).toHaveBeenCalledWith({ progress: 1, total: 2 }, { callId: "c1", toolName: "search" });
  });

  it("keeps reportProgress working detached, in a spread copy of the context, and after the call's end", async () => {
    let report: ((progress: { progress: number }) => void) | undefined;
    const { env } = setup((_, context) => {
      const { reportProgress } = context;
      reportProgress({ progress: 1 });
      ({ ...context }).reportProgress({ progress: 2 });
      report = context.reportProgress;
      return "done";
    });
    const progress = vi.fn();
    env.onProgress = progress;
    await executeToolCall({ name: "search", input: { q: "x" }, callId: "c1" }, env);
    expect(progress.mock.calls.map(([reported]) => reported)).toEqual([{ progress: 1 }, { progress: 2 }]);
    // Without a listener it is still a function, and calling it does nothing.
    delete env.onProgress;
    await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(() => report?.({ progress: 3 })).not.toThrow();
    expect(progress).toHaveBeenCalledTimes(2);
  });
});

describe("executeToolCall edge cases", () => {
  it("treats a timeout past what timers can hold as 'as long as possible', not as 'at once'", async () => {
    const { env } = setup(() => new Promise((resolve) => setTimeout(() => resolve("done"), 20)));
    env.timeoutMs = Number.POSITIVE_INFINITY;
    expect(await executeToolCall({ name: "search", input: { q: "x" } }, env)).toMatchObject({ ok: true });
    env.timeoutMs = 2 ** 40;
    expect(await executeToolCall({ name: "search", input: { q: "x" } }, env)).toMatchObject({ ok: true });
  });

  it("builds a failed observation from a tool failure without its internal brand", async () => {
    const { env } = setup(() => toolFailure("mcp_error", "boom", { code: -32000 }));
    const outcome = await executeToolCall({ name: "search", input: { q: "x" } }, env);
    expect(Object.getOwnPropertySymbols(outcome)).toEqual([]);
  });
});
