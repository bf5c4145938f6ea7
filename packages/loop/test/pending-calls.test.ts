import { startRun } from "@agent/loop";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect, it } from "vitest";
import { createHarness } from "./helpers.js";

const TWO_CALLS = toolCallTurn([
  { id: "tc_ok", name: "echo", input: { text: "one" } },
  { id: "tc_bad", name: "launch_rockets", input: {} },
]);

describe("a turn's pending calls", () => {
  it("take their ids from the environment's createId, and the model's call ids and names", async () => {
    const harness = createHarness();
    let made = 0;
    const createId = (kind: "run" | "call") => `${kind}_${++made}`;
    const model = createScriptedModel([TWO_CALLS, textTurn("done")]);
    const result = await startRun(harness.env(model, { createId }), { prompt: "go" });
    expect(result.runId).toBe("run_1");
    // Recorded as they settle; numbered in the model's order.
    const records = result.state.calls.map((call) => [call.callId, call.toolCallId, call.toolName]);
    expect(records.sort()).toEqual([
      ["call_2", "tc_ok", "echo"],
      ["call_3", "tc_bad", "launch_rockets"],
    ]);
  });

  it("get distinct call_<uuid> ids without a createId", async () => {
    const harness = createHarness();
    const model = createScriptedModel([TWO_CALLS, textTurn("done")]);
    const result = await startRun(harness.env(model), { prompt: "go" });
    const ids = result.state.calls.map((call) => call.callId);
    for (const id of ids)
      expect(id).toMatch(/^call_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(2);
  });

  it("once all answered, go to the transcript as tool messages in the model's order, and leave the run", async () => {
    const harness = createHarness();
    const model = createScriptedModel([TWO_CALLS, textTurn("done")]);
    const result = await startRun(harness.env(model), { prompt: "go" });
    const tools = result.state.messages.filter((message) => message.role === "tool");
    expect(tools.map((message) => [message.toolCallId, message.toolName, message.isError])).toEqual([
      ["tc_ok", "echo", false],
      ["tc_bad", "launch_rockets", true],
    ]);
    expect(tools[0]?.content).toBe("one");
    expect(result.state.pending).toEqual([]);
    expect((await harness.store.loadRun(result.runId))?.messages).toEqual(result.state.messages);
  });
});
