import { InMemoryRunStore, LoopError, resumeRun, startRun } from "@agent/loop";
import { sampleRunState } from "@agent/loop/testing";
import type { ModelResult, ModelUsage } from "@agent/models";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect, it } from "vitest";
import { RUN_STATE_FORMAT } from "../src/run-state.js";
import { createHarness } from "./helpers.js";

function costing(result: ModelResult, usage: ModelUsage): ModelResult {
  return result.ok ? { ...result, usage } : result;
}

const echo = (id: string) => toolCallTurn([{ id, name: "echo", input: { text: id } }]);

describe("token budget (maxTokens)", () => {
  it("stops the run failed with token_budget_exceeded after the turn that passes it, running none of its calls", async () => {
    const harness = createHarness();
    const model = createScriptedModel([
      costing(echo("tc_1"), { inputTokens: 40, outputTokens: 10 }),
      costing(echo("tc_2"), { inputTokens: 60, outputTokens: 10 }),
      textTurn("never asked"),
    ]);
    const result = await startRun(harness.env(model), { prompt: "echo twice", maxTokens: 100 });
    expect(result).toMatchObject({
      status: "failed",
      turns: 2,
      usage: { inputTokens: 100, outputTokens: 20 },
    });
    expect(result.error?.code).toBe("token_budget_exceeded");
    expect(result.error?.message).toContain("120 tokens");
    expect(model.requests).toHaveLength(2);
    // The first turn's call ran; the second turn's call did not, and waits in the record for a resume.
    expect(harness.executed.echo).toEqual([{ text: "tc_1" }]);
    const saved = await harness.store.loadRun(result.runId);
    expect(saved).toMatchObject({ status: "failed", maxTokens: 100, format: RUN_STATE_FORMAT });
    expect(saved?.pending.map((call) => [call.toolCallId, call.status])).toEqual([["tc_2", "queued"]]);
    expect(harness.events.ofType("run_finished")[0]).toMatchObject({
      status: "failed",
      code: "token_budget_exceeded",
    });
  });

  it("lets a run use exactly its budget, and completes a final turn even past it (nothing more is spent)", async () => {
    const exact = createHarness();
    const atBudget = await startRun(
      exact.env(
        createScriptedModel([
          costing(echo("tc_1"), { inputTokens: 40, outputTokens: 10 }),
          costing(textTurn("done"), { inputTokens: 45, outputTokens: 5 }),
        ]),
      ),
      { prompt: "p", maxTokens: 100 },
    );
    expect(atBudget).toMatchObject({ status: "completed", output: "done" });
    const past = createHarness();
    const final = await startRun(
      past.env(
        createScriptedModel([costing(textTurn("short answer"), { inputTokens: 500, outputTokens: 5 })]),
      ),
      { prompt: "p", maxTokens: 100 },
    );
    expect(final).toMatchObject({ status: "completed", output: "short answer" });
  });

  it("keeps counting from the saved totals on resume; a bigger budget runs the held-back calls and goes on", async () => {
    const harness = createHarness();
    const first = createScriptedModel([costing(echo("tc_1"), { inputTokens: 80, outputTokens: 30 })]);
    const stopped = await startRun(harness.env(first), { prompt: "p", maxTokens: 100 });
    expect(stopped.error?.code).toBe("token_budget_exceeded");

    // Same budget: nothing runs, no model request, the same stop.
    const idle = createScriptedModel([textTurn("never asked")]);
    const again = await resumeRun(harness.env(idle), { runId: stopped.runId });
    expect(again).toMatchObject({ status: "failed", error: { code: "token_budget_exceeded" } });
    expect(idle.requests).toHaveLength(0);
    expect(harness.executed.echo).toBeUndefined();

    // A bigger one: the held-back call runs, then turns go on, counted on top of the 110 used.
    const next = createScriptedModel([
      costing(echo("tc_2"), { inputTokens: 50, outputTokens: 10 }),
      costing(echo("tc_3"), { inputTokens: 50, outputTokens: 10 }),
      textTurn("never asked"),
    ]);
    const resumed = await resumeRun(harness.env(next), { runId: stopped.runId, maxTokens: 200 });
    expect(resumed).toMatchObject({
      status: "failed",
      turns: 3,
      usage: { inputTokens: 180, outputTokens: 50 },
      error: { code: "token_budget_exceeded" },
    });
    expect(harness.executed.echo).toEqual([{ text: "tc_1" }, { text: "tc_2" }]);
    expect((await harness.store.loadRun(stopped.runId))?.maxTokens).toBe(200);
  });

  it("refuses a budget that is not a positive integer", async () => {
    const harness = createHarness();
    for (const maxTokens of [0, -1, 1.5, Number.NaN]) {
      await expect(
        startRun(harness.env(createScriptedModel([textTurn("x")])), { prompt: "p", maxTokens }),
      ).rejects.toSatisfy((error) => LoopError.isInstance(error) && error.code === "invalid_options");
    }
  });

  it("resumes a run saved in format 1 (no budget field), rewriting it as the current format", async () => {
    const store = new InMemoryRunStore();
    const { maxTokens: _none, ...old } = sampleRunState("run_old", {
      status: "failed",
      pending: [],
      requestIds: [],
      error: { code: "model_unavailable", message: "down" },
    });
    await store.createRun({ ...old, format: 1 } as never);
    const harness = createHarness();
    const model = createScriptedModel([textTurn("back")]);
    const result = await resumeRun({ ...harness.env(model), store }, { runId: "run_old" });
    expect(result).toMatchObject({ status: "completed", output: "back" });
    expect(await store.loadRun("run_old")).toMatchObject({ format: RUN_STATE_FORMAT, maxTokens: null });
  });
});
