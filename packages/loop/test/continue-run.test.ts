import {
  continueRun,
  DEFAULT_MAX_TURNS,
  InMemoryRunStore,
  LoopError,
  resumeRun,
  startRun,
} from "@agent/loop";
import { sampleRunState } from "@agent/loop/testing";
import type { ModelMessage, ModelRequest } from "@agent/models";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { grantApprovalRequest } from "@agent/policy";
import { describe, expect, it } from "vitest";
import { RUN_STATE_FORMAT } from "../src/run-state.js";
import { createHarness } from "./helpers.js";

type SeenRequest = Omit<ModelRequest, "signal" | "onText">;

function roles(request: SeenRequest | undefined): string[] {
  return (request?.messages ?? []).map((message: ModelMessage) =>
    message.role === "user" ? `user:${message.content}` : message.role,
  );
}

describe("continueRun", () => {
  it("appends a user message to a completed run and drives it on: same run, whole history sent, one record", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      textTurn("first answer"),
      toolCallTurn([{ id: "tc_echo", name: "echo", input: { text: "again" } }]),
      textTurn("second answer"),
    ]);
    const env = harness.env(model);
    const first = await startRun(env, { prompt: "one", maxTurns: 1 });
    expect(first).toMatchObject({ status: "completed", output: "first answer", turns: 1 });

    const second = await continueRun(env, { runId: first.runId, prompt: "two" });
    expect(second).toMatchObject({
      runId: first.runId,
      status: "completed",
      output: "second answer",
      turns: 3,
    });
    // The follow-up's first request carried the first exchange, then the new prompt.
    expect(roles(model.requests[1])).toEqual(["user:one", "assistant", "user:two"]);
    const saved = await harness.store.loadRun(first.runId);
    expect(saved?.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    // The limit grew by this prompt's turns: the first prompt's single turn did not use them up.
    expect(saved?.maxTurns).toBe(1 + DEFAULT_MAX_TURNS);
    expect(harness.events.ofType("run_continued")).toEqual([
      expect.objectContaining({ runId: first.runId, turn: 1, promptChars: 3 }),
    ]);
    expect(JSON.stringify(harness.events.ofType("run_continued"))).not.toContain("two");
  });

  it("gives a max_turns run more turns for the new prompt", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      toolCallTurn([{ id: "tc_1", name: "echo", input: { text: "a" } }]),
      textTurn("done now"),
    ]);
    const env = harness.env(model);
    const stopped = await startRun(env, { prompt: "loop", maxTurns: 1 });
    expect(stopped.status).toBe("max_turns");
    const done = await continueRun(env, { runId: stopped.runId, prompt: "finish", maxTurns: 2 });
    expect(done).toMatchObject({ status: "completed", output: "done now", turns: 2 });
    expect(roles(model.requests[1])).toEqual(["user:loop", "assistant", "tool", "user:finish"]);
  });

  it("refuses a waiting run (decide and resume it), an unknown id, and an empty prompt", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      toolCallTurn([{ id: "tc_w", name: "write_note", input: { text: "x" } }]),
      textTurn("wrote"),
    ]);
    const env = harness.env(model);
    const waiting = await startRun(env, { prompt: "write" });
    expect(waiting.status).toBe("waiting");
    const refused = continueRun(env, { runId: waiting.runId, prompt: "more" });
    await expect(refused).rejects.toSatisfy(
      (error) => LoopError.isInstance(error) && error.code === "run_not_continuable",
    );
    await expect(continueRun(env, { runId: waiting.runId, prompt: "more" })).rejects.toThrow(/resume it/);
    // Nothing was added to the waiting run.
    expect((await harness.store.loadRun(waiting.runId))?.messages).toHaveLength(2);
    await expect(continueRun(env, { runId: "run_missing", prompt: "x" })).rejects.toMatchObject({
      code: "run_not_found",
    });
    await expect(continueRun(env, { runId: waiting.runId, prompt: "  " })).rejects.toMatchObject({
      code: "invalid_options",
    });

    // Once decided and resumed, it takes the follow-up, and the write ran exactly once.
    await grantApprovalRequest(harness.approvals, waiting.requestIds[0] as string);
    expect((await resumeRun(env, { runId: waiting.runId })).status).toBe("completed");
    const followUp = createScriptedModel([textTurn("ok")]);
    const next = await continueRun(harness.env(followUp), { runId: waiting.runId, prompt: "thanks" });
    expect(next.status).toBe("completed");
    expect(harness.executed.write_note).toHaveLength(1);
  });

  it("answers a call interrupted by Ctrl-C as cancelled, never running it again", async () => {
    const harness = createHarness();
    const controller = new AbortController();
    const model = createScriptedModel([
      toolCallTurn([{ id: "tc_slow", name: "slow", input: {} }]),
      textTurn("ok"),
    ]);
    harness.events.emit = ((emit) => (event) => {
      emit(event);
      if (event.type === "tool_call_decided" && event.toolName === "slow")
        setImmediate(() => controller.abort());
    })(harness.events.emit.bind(harness.events));
    const cancelled = await startRun(harness.env(model, { signal: controller.signal }), { prompt: "go" });
    expect(cancelled.status).toBe("cancelled");
    const next = await continueRun(harness.env(model), { runId: cancelled.runId, prompt: "never mind" });
    expect(next).toMatchObject({ status: "completed", output: "ok" });
    expect(harness.executed.slow).toHaveLength(1);
    const sent = model.requests[1]?.messages ?? [];
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(sent[2]).toMatchObject({ role: "tool", toolCallId: "tc_slow", isError: true });
    const saved = await harness.store.loadRun(cancelled.runId);
    expect(saved?.calls.map((call) => [call.toolName, call.observation.ok])).toEqual([["slow", false]]);
  });

  it("continues a completed run saved in format 2 (before taints), rewriting it as the current format", async () => {
    const store = new InMemoryRunStore();
    const { taint: _none, ...old } = sampleRunState("run_old", {
      status: "completed",
      pending: [],
      requestIds: [],
      output: "earlier",
      messages: [
        { role: "user", content: "first" },
        { role: "assistant", content: "earlier", toolCalls: [] },
      ],
      calls: [],
    });
    await store.createRun({ ...old, format: 2 } as never);
    const harness = createHarness();
    const model = createScriptedModel([textTurn("later")]);
    const result = await continueRun(
      { ...harness.env(model), store },
      { runId: "run_old", prompt: "second" },
    );
    expect(result).toMatchObject({ status: "completed", output: "later", turns: 2 });
    expect(roles(model.requests[0])).toEqual(["user:first", "assistant", "user:second"]);
    expect(await store.loadRun("run_old")).toMatchObject({ format: RUN_STATE_FORMAT, taint: [] });
  });

  it("a run it continued is resumed, listed and continued again like any other (no new format)", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      textTurn("one"),
      toolCallTurn([{ id: "tc_w", name: "write_note", input: { text: "n" } }]),
      textTurn("noted"),
      textTurn("three"),
    ]);
    const env = harness.env(model);
    const first = await startRun(env, { prompt: "a" });
    const held = await continueRun(env, { runId: first.runId, prompt: "b" });
    expect(held.status).toBe("waiting");
    await grantApprovalRequest(harness.approvals, held.requestIds[0] as string);
    expect((await resumeRun(env, { runId: first.runId })).status).toBe("completed");
    const third = await continueRun(env, { runId: first.runId, prompt: "c" });
    expect(third).toMatchObject({ status: "completed", output: "three", turns: 4 });
    const [listed] = await harness.store.listRuns();
    expect(listed).toMatchObject({ runId: first.runId, prompt: "a", turns: 4 });
    expect((await harness.store.loadRun(first.runId))?.format).toBe(RUN_STATE_FORMAT);
  });
});
