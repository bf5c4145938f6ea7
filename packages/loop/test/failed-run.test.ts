import { LoopError, startRun } from "@agent/loop";
import type { ModelClient } from "@agent/models";
import { createScriptedModel, toolCallTurn } from "@agent/models/testing";
import { describe, expect, it } from "vitest";
import { createHarness, failingUpdates } from "./helpers.js";

const ECHO_TURN = toolCallTurn([{ id: "tc_1", name: "echo", input: { text: "once" } }]);

describe("a run stopped by an error", () => {
  it("is saved failed (internal_error) and its error thrown as it was, when no call's outcome was lost", async () => {
    const harness = createHarness();
    const thrown = new Error("socket hang up");
    const model: ModelClient = {
      provider: "broken",
      model: "broken",
      createTurn: () => Promise.reject(thrown),
    };
    const failed = await startRun(harness.env(model), { prompt: "hi", runId: "run_broken" }).catch(
      (error: unknown) => error,
    );
    expect(failed).toBe(thrown);
    expect(await harness.store.loadRun("run_broken")).toMatchObject({
      status: "failed",
      error: { code: "internal_error", message: "socket hang up" },
    });
  });

  it("says which calls may have run unrecorded when nothing more could be saved", async () => {
    const harness = createHarness();
    const model = createScriptedModel([ECHO_TURN]);
    const failed = await startRun(harness.env(model, { store: failingUpdates(harness.store, 2) }), {
      prompt: "echo",
      runId: "run_gone",
    }).catch((error: unknown) => error);
    expect(LoopError.isInstance(failed) && failed.code).toBe("run_not_saved");
    const message = (failed as Error).message;
    expect(message).toContain("connection terminated unexpectedly");
    expect(message).toContain("may have run, and nothing of it could be saved");
    expect((failed as Error).cause).toBeInstanceOf(Error);
    expect((await harness.store.loadRun("run_gone"))?.status).toBe("running");
  });

  it("says that every outcome is kept when the store is back for the failure's own save", async () => {
    const harness = createHarness();
    const model = createScriptedModel([ECHO_TURN]);
    const failed = await startRun(harness.env(model, { store: failingUpdates(harness.store, 2, 2) }), {
      prompt: "echo",
      runId: "run_back",
    }).catch((error: unknown) => error);
    expect(LoopError.isInstance(failed) && failed.code).toBe("run_not_saved");
    expect((failed as Error).message).toContain("Every call that ran has its outcome in the run");
    expect((await harness.store.loadRun("run_back"))?.status).toBe("failed");
  });
});
