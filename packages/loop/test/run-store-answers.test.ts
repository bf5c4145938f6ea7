import { InMemoryRunStore, LoopError, type RunChange, type RunStore, startRun } from "@agent/loop";
import { RUN_STORE_CONTRACT } from "@agent/loop/testing";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect, it } from "vitest";
import { createHarness } from "./helpers.js";

/** The in-memory store answering every update a turn of the event loop later, as a database driver does. */
function answeringLater(inner: RunStore): RunStore {
  return {
    createRun: (state) => inner.createRun(state),
    loadRun: (runId) => inner.loadRun(runId),
    listRuns: (options) => inner.listRuns(options),
    updateRun: (runId, expectedVersion, change, now) =>
      new Promise((resolve, reject) => {
        setImmediate(() => {
          try {
            resolve(inner.updateRun(runId, expectedVersion, change, now));
          } catch (error) {
            reject(error);
          }
        });
      }),
  };
}

/** A store that lets `afterUpdates` updates through, then has another process take the run over. */
function takenOverAfter(inner: InMemoryRunStore, afterUpdates: number, later: boolean): RunStore {
  let updates = 0;
  const store: RunStore = {
    createRun: (state) => inner.createRun(state),
    loadRun: (runId) => inner.loadRun(runId),
    listRuns: (options) => inner.listRuns(options),
    updateRun(runId: string, expectedVersion: number, change: RunChange, now?: Date) {
      updates += 1;
      // Another process claims the run: its version moves on, this one's update finds it gone.
      if (updates === afterUpdates + 1)
        void inner.updateRun(runId, expectedVersion, { set: { owner: "other" } });
      return inner.updateRun(runId, expectedVersion, change, now);
    },
  };
  return later ? answeringLater(store) : store;
}

describe("a RunStore that answers later (a promise per update)", () => {
  for (const scenario of RUN_STORE_CONTRACT) {
    it(scenario.name, () => scenario.run(() => ({ store: answeringLater(new InMemoryRunStore()) })));
  }

  it("saves every call of a turn run concurrently, in the order the updates were made", async () => {
    const harness = createHarness();
    const store = answeringLater(harness.store);
    const calls = Array.from({ length: 5 }, (_, index) => ({
      id: `tc_${index}`,
      name: "echo",
      input: { text: `hi ${index}` },
    }));
    const model = createScriptedModel([toolCallTurn(calls), textTurn("done")]);
    const result = await startRun(harness.env(model, { store, maxConcurrentCalls: 3 }), { prompt: "echo" });
    expect(result.status).toBe("completed");
    const saved = await store.loadRun(result.runId);
    const { version: _version, updatedAt: _updatedAt, ...kept } = result.state;
    expect(saved).toMatchObject(kept);
    expect(saved?.calls.map((call) => call.observation.ok)).toEqual([true, true, true, true, true]);
    expect(saved?.messages.filter((message) => message.role === "tool")).toHaveLength(5);
  });
});

describe("a run taken over by another process", () => {
  for (const later of [false, true]) {
    it(`stops with run_conflict at its next update, leaving the record alone (store answering ${later ? "later" : "at once"})`, async () => {
      const harness = createHarness();
      const loop = toolCallTurn([{ id: "tc", name: "echo", input: { text: "again" } }]);
      const model = createScriptedModel([loop, loop, loop]);
      // Update 1 saves the first turn; the run is taken over before update 2 (the call's result).
      const store = takenOverAfter(harness.store, 1, later);
      const run = startRun(harness.env(model, { store }), { prompt: "echo", runId: "run_taken" });
      await expect(run).rejects.toSatisfy(
        (error: unknown) => LoopError.isInstance(error) && error.code === "run_conflict",
      );
      const saved = await harness.store.loadRun("run_taken");
      expect(saved?.owner).toBe("other");
      expect(saved?.status).toBe("running");
      expect(saved?.calls).toEqual([]);
      expect(model.requests).toHaveLength(1);
    });
  }
});
