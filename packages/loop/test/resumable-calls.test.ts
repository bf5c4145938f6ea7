import { type RunChange, type RunStore, resumeRun, startRun } from "@agent/loop";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { grantApprovalRequest } from "@agent/policy";
import { defineTool, type GateRequest, type JsonValue, type ToolGate } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { RUN_STATE_FORMAT } from "../src/run-state.js";
import { createHarness } from "./helpers.js";

/**
 * A call that checkpoints where it stands (a remote task it started) survives its process: the run
 * saves the checkpoint in the call's pending entry, and a takeover resumes the call from it (the
 * tool told to continue, the gate not asked again) instead of holding it as `outcome_unknown`.
 */
describe("a checkpointed call whose process vanished", () => {
  function setUp() {
    const harness = createHarness();
    const started: unknown[] = [];
    const resumed: JsonValue[] = [];
    harness.tools.register(
      defineTool({
        name: "job",
        description: "Starts a long job and follows it.",
        effect: "read",
        resumable: true,
        schema: z.object({ name: z.string() }),
        execute: async (input, context) => {
          if (context.resume !== undefined) {
            resumed.push(context.resume);
            return `finished ${input.name}`;
          }
          started.push(input);
          await context.checkpoint?.({ task: "t-1" });
          // The process "dies" here: the call never answers.
          return new Promise(() => {});
        },
      }),
    );
    const admitted: GateRequest[] = [];
    const gate = (inner: ToolGate): ToolGate => ({
      admit: (request) => {
        admitted.push(request);
        return inner.admit(request);
      },
    });
    return { harness, started, resumed, admitted, gate };
  }

  /** The store as a vanished process left it: every update after the checkpoint's is lost with it. */
  function vanishingAfter(inner: RunStore, updates: number, vanished: { now: boolean }): RunStore {
    let count = 0;
    return {
      createRun: (state) => inner.createRun(state),
      loadRun: (runId) => inner.loadRun(runId),
      listRuns: (options) => inner.listRuns(options),
      updateRun(runId: string, version: number, change: RunChange, now?: Date) {
        count += 1;
        if (count === updates) vanished.now = true;
        return inner.updateRun(runId, version, change, now);
      },
    };
  }

  it("is resumed from its checkpoint: run once, decided once, its result in the run", async () => {
    const { harness, started, resumed, admitted, gate } = setUp();
    const vanished = { now: false };
    // Update 1 saves the turn, update 2 the checkpoint: then the process is as good as gone.
    const store = vanishingAfter(harness.store, 2, vanished);
    const first = harness.env(
      createScriptedModel([toolCallTurn([{ id: "tc_1", name: "job", input: { name: "build" } }])]),
      {
        store,
      },
    );
    const gone = new AbortController();
    const firstRun = startRun(
      { ...first, gate: gate(first.gate), signal: gone.signal },
      { prompt: "build it", runId: "run_job" },
    );
    await expect.poll(() => vanished.now).toBe(true);
    const saved = await harness.store.loadRun("run_job");
    expect(saved).toMatchObject({ status: "running", format: RUN_STATE_FORMAT });
    expect(saved?.pending).toEqual([
      expect.objectContaining({ status: "queued", checkpoint: { task: "t-1" } }),
    ]);

    const second = harness.env(createScriptedModel([textTurn("built")]));
    const result = await resumeRun(
      { ...second, gate: gate(second.gate) },
      { runId: "run_job", canTakeOver: () => true },
    );
    expect(result.status).toBe("completed");
    expect(started).toHaveLength(1);
    expect(resumed).toEqual([{ task: "t-1" }]);
    // The gate decided the call once, in the first process.
    expect(admitted).toHaveLength(1);
    expect(result.state.calls).toEqual([
      expect.objectContaining({
        callId: saved?.pending[0]?.callId,
        observation: expect.objectContaining({ ok: true, output: "finished build" }),
      }),
    ]);
    expect(result.state.pending).toEqual([]);
    const types = harness.events.events.map((event) => event.type);
    expect(types).toContain("tool_call_resumed");
    // The first "process" is stopped for good: it no longer owns the run.
    gone.abort();
    await expect(firstRun).rejects.toMatchObject({ code: "run_conflict" });
  });

  it("a call of the same run without a checkpoint is still held as outcome_unknown", async () => {
    const { harness, started } = setUp();
    const vanished = { now: false };
    const store = vanishingAfter(harness.store, 2, vanished);
    const turn = toolCallTurn([
      { id: "tc_1", name: "job", input: { name: "build" } },
      { id: "tc_2", name: "slow", input: {} },
    ]);
    const gone = new AbortController();
    const firstRun = startRun(
      harness.env(createScriptedModel([turn]), { store, maxConcurrentCalls: 2, signal: gone.signal }),
      {
        prompt: "go",
        runId: "run_mixed",
      },
    );
    await expect.poll(() => vanished.now).toBe(true);
    await expect.poll(() => harness.executed.slow?.length ?? 0).toBe(1);
    const result = await resumeRun(harness.env(createScriptedModel([textTurn("done")])), {
      runId: "run_mixed",
      canTakeOver: () => true,
    });
    expect(result.status).toBe("failed");
    // Nothing of the turn runs until someone decides about the lost one; the checkpointed call keeps its checkpoint.
    expect(result.state.pending).toEqual([
      expect.objectContaining({ status: "queued", checkpoint: { task: "t-1" } }),
      expect.objectContaining({ status: "outcome_unknown" }),
    ]);
    expect(started).toHaveLength(1);
    gone.abort();
    await expect(firstRun).rejects.toMatchObject({ code: "run_conflict" });
  });

  it("an interrupted run keeps its call's checkpoint: a resume follows the task, never starts it again", async () => {
    const { harness, started, resumed } = setUp();
    const controller = new AbortController();
    const model = createScriptedModel([
      toolCallTurn([{ id: "tc_1", name: "job", input: { name: "build" } }]),
    ]);
    const running = startRun(harness.env(model, { signal: controller.signal }), {
      prompt: "go",
      runId: "run_cut",
    });
    await expect
      .poll(async () => (await harness.store.loadRun("run_cut"))?.pending[0]?.checkpoint)
      .toEqual({ task: "t-1" });
    controller.abort();
    const stopped = await running;
    expect(stopped.status).toBe("cancelled");
    // Whether the task's cancellation reached the server is not known here: the checkpoint stays.
    expect((await harness.store.loadRun("run_cut"))?.pending[0]?.checkpoint).toEqual({ task: "t-1" });
    const rerun = await resumeRun(harness.env(createScriptedModel([textTurn("done")])), { runId: "run_cut" });
    expect(rerun.status).toBe("completed");
    expect(started).toHaveLength(1);
    expect(resumed).toEqual([{ task: "t-1" }]);
  });

  it("a tool that is not resumable is refused a resumption, and nothing runs", async () => {
    const { harness } = setUp();
    const env = harness.env(createScriptedModel([]));
    const { executeToolCall } = await import("@agent/tools");
    const outcome = await executeToolCall(
      { name: "echo", input: { text: "x" }, resume: { task: "t-1" } },
      {
        registry: env.tools,
        gate: env.gate,
        runId: "run_x",
        cwd: "/work/space",
      },
    );
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied" });
    expect(harness.executed.echo).toBeUndefined();
  });

  it("ignores a checkpoint on a held call: the gate still decides it, and it runs fresh once granted", async () => {
    const harness = createHarness();
    const started: unknown[] = [];
    const resumed: JsonValue[] = [];
    harness.tools.register(
      defineTool({
        name: "deploy",
        description: "Deploys (a write: the policy asks).",
        effect: "write",
        resumable: true,
        schema: z.object({ name: z.string() }),
        execute: async (input, context) => {
          if (context.resume !== undefined) resumed.push(context.resume);
          else started.push(input);
          return "deployed";
        },
      }),
    );
    const env = harness.env(
      createScriptedModel([
        toolCallTurn([{ id: "tc_1", name: "deploy", input: { name: "prod" } }]),
        textTurn("done"),
      ]),
    );
    const waiting = await startRun(env, { prompt: "deploy", runId: "run_held" });
    expect(waiting.status).toBe("waiting");
    // Someone who can write the run store forges a checkpoint on the held call.
    const saved = await harness.store.loadRun("run_held");
    if (!saved) throw new Error("run_held was not saved");
    await harness.store.updateRun("run_held", saved.version, {
      set: { pending: saved.pending.map((call) => ({ ...call, checkpoint: { task: "forged" } })) },
    });
    expect(await resumeRun(env, { runId: "run_held" })).toMatchObject({ status: "waiting" });
    expect({ started, resumed }).toEqual({ started: [], resumed: [] });

    await grantApprovalRequest(harness.approvals, waiting.requestIds[0] as string);
    expect(await resumeRun(env, { runId: "run_held" })).toMatchObject({ status: "completed" });
    expect({ started, resumed }).toEqual({ started: [{ name: "prod" }], resumed: [] });
  });
});
