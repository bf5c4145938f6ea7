import { LoopError, RUN_ERROR_CODES, resumeRun, startRun } from "@agent/loop";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect, it } from "vitest";
import { createHarness, failingUpdates } from "./helpers.js";

const ECHO_TURN = toolCallTurn([{ id: "tc_1", name: "echo", input: { text: "once" } }]);

describe("a call whose outcome could not be saved", () => {
  it("is never run again by a takeover: it is held as outcome_unknown until someone decides", async () => {
    const harness = createHarness();
    // Update 1 saves the turn; from update 2 (the call's result) on, the store is gone for this process.
    const store = failingUpdates(harness.store, 2);
    const model = createScriptedModel([ECHO_TURN, textTurn("done")]);
    const failed = await startRun(harness.env(model, { store }), { prompt: "echo", runId: "run_lost" }).catch(
      (error: unknown) => error,
    );
    expect(LoopError.isInstance(failed) && failed.code).toBe("run_not_saved");
    expect((failed as Error).message).toMatch(/may have run/);
    expect(harness.executed.echo).toHaveLength(1);
    // What the store kept: the run as it was when its process lost it.
    expect((await harness.store.loadRun("run_lost"))?.status).toBe("running");

    // Another process takes it over (its owner is gone): the call is not run again.
    const env = harness.env(createScriptedModel([textTurn("done")]));
    const resumed = await resumeRun(env, { runId: "run_lost", canTakeOver: () => true });
    expect(resumed.status).toBe("failed");
    expect(resumed.error?.code).toBe(RUN_ERROR_CODES.callOutcomeUnknown);
    expect(resumed.state.pending).toEqual([expect.objectContaining({ status: "outcome_unknown" })]);
    // Resuming again without a decision changes nothing, and a decision about another call is refused.
    expect((await resumeRun(env, { runId: "run_lost" })).error?.code).toBe("call_outcome_unknown");
    await expect(
      resumeRun(env, { runId: "run_lost", unknownOutcomes: { call_other: "rerun" } }),
    ).rejects.toMatchObject({ code: "invalid_options" });
    expect(harness.executed.echo).toHaveLength(1);

    // The operator decides to tell the model: nothing runs, the model reads outcome_unknown, the run goes on.
    const callId = resumed.state.pending[0]?.callId ?? "";
    const decided = await resumeRun(env, {
      runId: "run_lost",
      unknownOutcomes: { [callId]: "answer_unknown" },
    });
    expect(decided.status).toBe("completed");
    expect(harness.executed.echo).toHaveLength(1);
    const answer = decided.state.messages.find((message) => message.role === "tool");
    expect(answer).toMatchObject({ isError: true, content: expect.stringContaining("outcome_unknown") });
  });

  it("a rerun decision runs it again, through the gate", async () => {
    const harness = createHarness();
    const model = createScriptedModel([ECHO_TURN]);
    await startRun(harness.env(model, { store: failingUpdates(harness.store, 2) }), {
      prompt: "echo",
      runId: "run_rerun",
    }).catch(() => undefined);
    const env = harness.env(createScriptedModel([textTurn("done")]));
    const held = await resumeRun(env, { runId: "run_rerun", canTakeOver: () => true });
    const callId = held.state.pending[0]?.callId ?? "";
    const rerun = await resumeRun(env, { runId: "run_rerun", unknownOutcomes: { [callId]: "rerun" } });
    expect(rerun.status).toBe("completed");
    expect(harness.executed.echo).toHaveLength(2);
  });

  it("a store back for the failure's own save keeps the outcome it had: a resume does not run the call again", async () => {
    const harness = createHarness();
    // Only update 2 (the call's result) fails; the save of the failure goes through with the outcome.
    const store = failingUpdates(harness.store, 2, 2);
    const model = createScriptedModel([ECHO_TURN]);
    await startRun(harness.env(model, { store }), { prompt: "echo", runId: "run_kept" }).catch(
      () => undefined,
    );
    const saved = await harness.store.loadRun("run_kept");
    expect(saved?.status).toBe("failed");
    // The failed update is saved with the failure: the call's record and its result in the transcript.
    expect(saved?.pending).toEqual([]);
    expect(saved?.calls).toHaveLength(1);
    expect(saved?.messages.at(-1)).toMatchObject({ role: "tool", content: "once", isError: false });

    const resumed = await resumeRun(harness.env(createScriptedModel([textTurn("done")])), {
      runId: "run_kept",
    });
    expect(resumed.status).toBe("completed");
    expect(harness.executed.echo).toHaveLength(1);
  });

  it("of concurrent calls, only those handed to the executor and not saved are unknown", async () => {
    const harness = createHarness();
    const calls = Array.from({ length: 4 }, (_, index) => ({
      id: `tc_${index}`,
      name: "echo",
      input: { text: `hi ${index}` },
    }));
    // Update 2 saves the first call's result; update 3 (the second's) fails, and so does all after.
    const store = failingUpdates(harness.store, 3);
    const model = createScriptedModel([toolCallTurn(calls)]);
    await startRun(harness.env(model, { store, maxConcurrentCalls: 1 }), {
      prompt: "echo",
      runId: "run_many",
    }).catch(() => undefined);
    expect(harness.executed.echo).toHaveLength(2);
    const env = harness.env(createScriptedModel([textTurn("done")]));
    const resumed = await resumeRun(env, { runId: "run_many", canTakeOver: () => true });
    // A takeover cannot tell a queued call that started from one that did not: every one is held.
    expect(resumed.state.pending.map((call) => call.status)).toEqual([
      "done",
      "outcome_unknown",
      "outcome_unknown",
      "outcome_unknown",
    ]);
    expect(harness.executed.echo).toHaveLength(2);
  });
});
