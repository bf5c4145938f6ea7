import { startRun } from "@agent/loop";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect, it } from "vitest";
import { createHarness, echoPingThen, textCallsThen } from "./helpers.js";

const ECHO_TURN = toolCallTurn([{ id: "tc_1", name: "echo", input: { text: "ping" } }]);

describe("how a run stops", () => {
  it("returns the run as saved: its state has the stored version and update time", async () => {
    const harness = createHarness();
    const model = echoPingThen("done");
    const result = await startRun(harness.env(model), { prompt: "echo ping" });
    const saved = await harness.store.loadRun(result.runId);
    expect(result.state.version).toBe(saved?.version);
    expect(result.state.updatedAt).toBe(saved?.updatedAt);
    expect(result.state).toEqual(saved);
  });

  it("waits on its held calls: saved waiting with their request ids, announced, no output", async () => {
    const harness = createHarness();
    const model = textCallsThen([
      ["tc_a", "write_note", "a"],
      ["tc_b", "write_note", "b"],
    ]);
    const result = await startRun(harness.env(model), { prompt: "notes" });
    expect(result).toMatchObject({ status: "waiting", output: null, turns: 1 });
    expect(result.requestIds).toHaveLength(2);
    expect(result).not.toHaveProperty("error");
    const saved = await harness.store.loadRun(result.runId);
    expect(saved).toMatchObject({ status: "waiting", requestIds: result.requestIds, error: null });
    const types = harness.events.events.map((event) => event.type).filter((type) => type.startsWith("run_"));
    expect(types).toEqual(["run_started", "run_waiting", "run_finished"]);
    expect(harness.events.ofType("run_finished")[0]).toMatchObject({ status: "waiting", turns: 1 });
    expect(harness.events.ofType("run_finished")[0]).not.toHaveProperty("code");
  });

  it("gives each result its own copies: changing one changes neither the run's usage nor its request ids", async () => {
    const harness = createHarness();
    const model = textCallsThen([["tc", "write_note", "x"]]);
    const result = await startRun(harness.env(model), { prompt: "note" });
    result.usage.inputTokens += 100;
    result.requestIds.push("forged");
    expect(result.state.usage.inputTokens).not.toBe(result.usage.inputTokens);
    expect(result.state.requestIds).toHaveLength(1);
  });

  it("at its turn limit: saved max_turns, with no output and no error code", async () => {
    const harness = createHarness();
    const model = createScriptedModel([ECHO_TURN, ECHO_TURN]);
    const result = await startRun(harness.env(model), { prompt: "loop", maxTurns: 1 });
    expect(result).toMatchObject({ status: "max_turns", output: null, turns: 1 });
    expect((await harness.store.loadRun(result.runId))?.status).toBe("max_turns");
    expect(harness.events.ofType("run_finished")[0]).toMatchObject({ status: "max_turns" });
    expect(harness.events.ofType("run_finished")[0]).not.toHaveProperty("code");
  });

  it("stamps the last save and the returned record with one time from the environment's clock", async () => {
    const harness = createHarness();
    const now = new Date("2026-05-06T07:08:09.010Z");
    const result = await startRun(harness.env(createScriptedModel([textTurn("done")]), { now: () => now }), {
      prompt: "hi",
    });
    expect(result.state.updatedAt).toBe(now.toISOString());
    expect((await harness.store.loadRun(result.runId))?.updatedAt).toBe(now.toISOString());
  });
});
