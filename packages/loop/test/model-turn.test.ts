import { startRun } from "@agent/loop";
import type { ModelResult, ModelUsage } from "@agent/models";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect, it } from "vitest";
import { createHarness, echoPingThen } from "./helpers.js";

function withUsage(result: ModelResult, usage: ModelUsage): ModelResult {
  return result.ok ? { ...result, usage } : result;
}

describe("a run's model turns", () => {
  it("asks with the run's system prompt, transcript, offered tools and output bound", async () => {
    const harness = createHarness();
    const model = echoPingThen("done");
    await startRun(harness.env(model, { maxOutputTokens: 64 }), { prompt: "echo ping", system: "Be brief." });
    expect(model.requests).toHaveLength(2);
    for (const request of model.requests) {
      expect(request).toMatchObject({ system: "Be brief.", maxOutputTokens: 64 });
      expect(request.tools.map((tool) => tool.name)).toContain("echo");
    }
    expect(model.requests[1]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool"]);
  });

  it("leaves out what the run does not set: no system prompt, no output bound", async () => {
    const harness = createHarness();
    const model = createScriptedModel([textTurn("hi")]);
    await startRun(harness.env(model), { prompt: "hi" });
    expect(model.requests[0]).not.toHaveProperty("system");
    expect(model.requests[0]).not.toHaveProperty("maxOutputTokens");
  });

  it("runs unobserved without an event sink or hooks", async () => {
    const harness = createHarness();
    const model = createScriptedModel([textTurn("quiet")]);
    const { events: _events, ...unobserved } = harness.env(model);
    const result = await startRun(unobserved, { prompt: "hi" });
    expect(result).toMatchObject({ status: "completed", output: "quiet" });
    expect(harness.events.ofType("model_request_finished")).toEqual([]);
  });

  it("fails with the model's structured error", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      { ok: false, code: "model_authentication", message: "401: invalid key", status: 401 },
    ]);
    const result = await startRun(harness.env(model), { prompt: "hi" });
    expect(result).toMatchObject({
      status: "failed",
      error: { code: "model_authentication", message: "401: invalid key" },
    });
    expect(harness.events.ofType("model_request_finished")[0]).toMatchObject({
      ok: false,
      code: "model_authentication",
      status: 401,
    });
    expect(harness.events.ofType("run_finished")[0]).toMatchObject({
      status: "failed",
      code: "model_authentication",
    });
  });

  it("reports each run and model request as events, without prompt or completion text", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      withUsage(toolCallTurn([{ id: "tc", name: "echo", input: { text: "x" } }]), {
        inputTokens: 10,
        outputTokens: 2,
      }),
      withUsage(textTurn("SECRET-COMPLETION"), { inputTokens: 20, outputTokens: 5 }),
    ]);
    const result = await startRun(harness.env(model), { prompt: "SECRET-PROMPT", system: "SECRET-SYSTEM" });
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 7 });
    const types = harness.events.events
      .map((event) => event.type)
      .filter((type) => !type.startsWith("tool_"));
    expect(types).toEqual([
      "run_started",
      "model_request_finished",
      "model_request_finished",
      "run_finished",
    ]);
    expect(harness.events.ofType("model_request_finished")[1]).toMatchObject({
      turn: 2,
      ok: true,
      stopReason: "end_turn",
      inputTokens: 20,
      outputTokens: 5,
      provider: "scripted",
    });
    expect(harness.events.ofType("run_finished")[0]).toMatchObject({
      status: "completed",
      turns: 2,
      inputTokens: 30,
      outputTokens: 7,
    });
    expect(JSON.stringify(harness.events.events)).not.toMatch(/SECRET/);
  });

  it("streams assistant text to onText", async () => {
    const harness = createHarness();
    const pieces: string[] = [];
    const phases: string[] = [];
    const model = createScriptedModel([textTurn("streamed")]);
    await startRun(
      harness.env(model, {
        onText: (delta) => pieces.push(delta),
        onModelRequest: (phase, turn) => phases.push(`${phase} ${turn}`),
      }),
      { prompt: "hi" },
    );
    expect(pieces.join("")).toBe("streamed");
    expect(phases).toEqual(["started 1", "finished 1"]);
  });
});
