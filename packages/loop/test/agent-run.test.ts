import { startRun } from "@agent/loop";
import type { ModelMessage, ModelRequest } from "@agent/models";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import type { Observation } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { createHarness, echoPingThen } from "./helpers.js";

function toolMessages(request: Omit<ModelRequest, "signal" | "onText"> | undefined) {
  return (request?.messages ?? []).filter(
    (message): message is Extract<ModelMessage, { role: "tool" }> => message.role === "tool",
  );
}

describe("startRun", () => {
  it("completes with the model's text when it calls no tool", async () => {
    const harness = createHarness();
    const model = createScriptedModel([textTurn("hello there")]);
    const result = await startRun(harness.env(model), { prompt: "hi", system: "Be brief." });
    expect(result).toMatchObject({ status: "completed", output: "hello there", turns: 1, requestIds: [] });
    expect(model.requests[0]?.system).toBe("Be brief.");
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: "hi" }]);
    const saved = await harness.store.loadRun(result.runId);
    expect(saved).toMatchObject({ status: "completed", output: "hello there", turns: 1 });
  });

  it("filters each observation before the model reads it and the run's record keeps it", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      toolCallTurn([{ id: "tc_1", name: "echo", input: { text: "token=SECRET123" } }]),
      textTurn("done"),
    ]);
    const env = {
      ...harness.env(model),
      filterObservation: (observation: Observation) =>
        JSON.parse(JSON.stringify(observation).replaceAll("SECRET123", "[redacted]")) as Observation,
    };
    const result = await startRun(env, { prompt: "echo it" });
    expect(result.status).toBe("completed");
    // The model wrote the secret into its arguments itself; what it reads back is filtered.
    expect(toolMessages(model.requests[1])[0]?.content).toBe("token=[redacted]");
    const saved = await harness.store.loadRun(result.runId);
    expect(JSON.stringify(saved?.calls)).not.toContain("SECRET123");
    expect(JSON.stringify(saved?.messages.filter((message) => message.role === "tool"))).not.toContain(
      "SECRET123",
    );
  });

  it("runs an allowed call through the gate and gives the model its result", async () => {
    const harness = createHarness();
    const model = echoPingThen("the tool said ping");
    const result = await startRun(harness.env(model), { prompt: "echo ping" });
    expect(result.status).toBe("completed");
    expect(harness.executed.echo).toEqual([{ text: "ping" }]);
    expect(toolMessages(model.requests[1])).toEqual([
      { role: "tool", toolCallId: "tc_1", toolName: "echo", content: "ping", isError: false },
    ]);
    expect(harness.events.ofType("tool_call_decided")[0]).toMatchObject({ decision: "allow", via: "policy" });
    expect(result.state.calls).toHaveLength(1);
  });

  it("does not offer tools the policy denies outright, and strict variants where they exist", async () => {
    const harness = createHarness();
    const model = createScriptedModel([textTurn("ok")]);
    await startRun(harness.env(model), { prompt: "which tools?" });
    const offered = model.requests[0]?.tools ?? [];
    expect(offered.map((tool) => tool.name)).toEqual(["echo", "write_note", "big", "slow"]);
    expect(offered[0]).toMatchObject({ strict: true, parameters: { additionalProperties: false } });
  });

  it("answers a denied call, bad JSON, a wrong type and an unknown tool with observations, running none", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      toolCallTurn([
        { id: "tc_deny", name: "rm", input: {} },
        { id: "tc_json", name: "echo", raw: '{"text": "unterminated' },
        { id: "tc_type", name: "echo", input: { text: 42 } },
        { id: "tc_unknown", name: "launch_rockets", input: {} },
      ]),
      textTurn("understood"),
    ]);
    const result = await startRun(harness.env(model), { prompt: "try things" });
    expect(result.status).toBe("completed");
    expect(harness.executed).toEqual({});
    const results = toolMessages(model.requests[1]);
    expect(results.map((message) => [message.toolCallId, message.isError])).toEqual([
      ["tc_deny", true],
      ["tc_json", true],
      ["tc_type", true],
      ["tc_unknown", true],
    ]);
    const codes = results.map((message) => JSON.parse(message.content).error);
    expect(codes).toEqual(["policy_denied", "invalid_arguments", "invalid_arguments", "unknown_tool"]);
    expect(results[1]?.content).toContain("not valid JSON");
    expect(JSON.parse(results[2]?.content ?? "").issues[0].path).toEqual(["text"]);
  });

  it("runs several calls of one turn, at most maxConcurrentCalls at once, results in call order", async () => {
    const harness = createHarness();
    let running = 0;
    let most = 0;
    harness.tools.register({
      ...(harness.tools.get("echo") as NonNullable<ReturnType<typeof harness.tools.get>>),
      name: "tick",
      prepare: () => ({
        ok: true,
        input: {},
        execute: async () => {
          running += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setImmediate(resolve));
          running -= 1;
          return "tock";
        },
      }),
    });
    const calls = Array.from({ length: 6 }, (_, index) => ({ id: `tc_${index}`, name: "tick", input: {} }));
    const model = createScriptedModel([toolCallTurn(calls), textTurn("done")]);
    await startRun(harness.env(model, { maxConcurrentCalls: 2 }), { prompt: "tick" });
    expect(most).toBe(2);
    expect(toolMessages(model.requests[1]).map((message) => message.toolCallId)).toEqual(
      calls.map((call) => call.id),
    );
  });

  it("stops at max turns without asking the model again", async () => {
    const harness = createHarness();
    const loop = toolCallTurn([{ id: "tc", name: "echo", input: { text: "again" } }]);
    const model = createScriptedModel([loop, loop, loop]);
    const result = await startRun(harness.env(model), { prompt: "loop", maxTurns: 2 });
    expect(result).toMatchObject({ status: "max_turns", turns: 2, output: null });
    expect(model.requests).toHaveLength(2);
    expect(harness.executed.echo).toHaveLength(2);
  });

  it("caps an oversized result for the model and keeps the whole output in the run's record", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      toolCallTurn([{ id: "tc", name: "big", input: {} }]),
      textTurn("long"),
    ]);
    const result = await startRun(harness.env(model, { maxToolOutputChars: 2_000 }), { prompt: "big" });
    const [message] = toolMessages(model.requests[1]);
    expect(message?.content.length).toBeLessThanOrEqual(2_000);
    expect(message?.content).toContain("output truncated");
    const saved = await harness.store.loadRun(result.runId);
    const call = saved?.calls[0];
    expect(call).toMatchObject({ truncated: true, chars: 50_000, bytes: 50_000 });
    expect(call?.observation.ok && call.observation.output).toBe("b".repeat(50_000));
  });

  it("refuses a turn limit that is not a positive integer", async () => {
    const harness = createHarness();
    await expect(
      startRun(harness.env(createScriptedModel([])), { prompt: "x", maxTurns: 0 }),
    ).rejects.toMatchObject({
      code: "invalid_options",
    });
  });
});
