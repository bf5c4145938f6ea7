import {
  callOfCallRun,
  claimCallRun,
  continueRun,
  InMemoryRunStore,
  isCallRun,
  LoopError,
  resumeRun,
  settleCallRun,
  startCallRun,
} from "@agent/loop";
import { createScriptedModel } from "@agent/models/testing";
import type { Observation } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { createHarness } from "./helpers.js";

const CALL = { toolName: "write_note", input: { text: "hello", tags: ["a"] }, cwd: "/work" };

describe("a one-call run is a run of the loop", () => {
  it("is saved with no transcript, no model turn allowed, and its call pending", async () => {
    const store = new InMemoryRunStore();
    const started = await startCallRun(store, { ...CALL, runId: "run_1", callId: "call_1", owner: "me" });
    const saved = await store.loadRun("run_1");
    expect(saved).toEqual(started);
    expect(saved).toMatchObject({ status: "running", maxTurns: 0, messages: [], calls: [], owner: "me" });
    expect(isCallRun(saved as NonNullable<typeof saved>)).toBe(true);
    expect(callOfCallRun(started)).toEqual({ runId: "run_1", callId: "call_1", ...CALL });
    expect(await store.listRuns()).toMatchObject([{ runId: "run_1", status: "running", turns: 0 }]);
  });

  it("waits on a held call, and once claimed and answered, stops with the whole observation kept", async () => {
    const store = new InMemoryRunStore();
    const started = await startCallRun(store, CALL);
    const held = await settleCallRun(store, started, {
      type: "held",
      requestId: "req_1",
      toolFingerprint: "f".repeat(64),
    });
    expect(await store.loadRun(started.runId)).toEqual(held);
    expect(held).toMatchObject({ status: "waiting", requestIds: ["req_1"], owner: null });
    expect(held.pending).toMatchObject([{ status: "held", requestId: "req_1" }]);

    const claimed = await claimCallRun(store, held, { owner: "resumer" });
    expect(claimed).toMatchObject({ status: "running", owner: "resumer", requestIds: [] });
    const observation = {
      type: "observation",
      ok: true,
      callId: "c",
      toolName: "write_note",
      output: "done",
    } as const;
    const answered = await settleCallRun(store, claimed as NonNullable<typeof claimed>, {
      type: "answered",
      observation,
    });
    const saved = await store.loadRun(started.runId);
    expect(saved).toEqual(answered);
    expect(saved).toMatchObject({ status: "completed", owner: null, messages: [] });
    expect(saved?.pending).toMatchObject([{ status: "done", requestId: "req_1" }]);
    expect(saved?.calls).toEqual([
      {
        callId: started.pending[0]?.callId,
        toolCallId: started.pending[0]?.callId,
        toolName: "write_note",
        turn: 0,
        observation,
        truncated: false,
        chars: 4,
        bytes: 4,
      },
    ]);
  });

  it("a failed observation fails the run, a cancelled one cancels it, and no outcome leaves the call to replay", async () => {
    const store = new InMemoryRunStore();
    const failure: Observation = {
      ...{ type: "observation", ok: false, callId: "c", toolName: "write_note" },
      ...{ error: "tool_error", message: "boom" },
    };
    const failed = await settleCallRun(store, await startCallRun(store, CALL), {
      type: "answered",
      observation: failure,
      truncated: { chars: 10, bytes: 12, sha256: "a".repeat(64) },
    });
    expect(failed.status).toBe("failed");
    expect(failed.calls[0]).toMatchObject({ truncated: true, chars: 10, bytes: 12, sha256: "a".repeat(64) });
    const cancelled = await settleCallRun(store, await startCallRun(store, CALL), {
      type: "answered",
      observation: {
        ...{ type: "observation", ok: false, callId: "c", toolName: "write_note" },
        ...{ error: "cancelled", message: "stopped" },
      } as const,
    });
    expect(cancelled.status).toBe("cancelled");
    const interrupted = await settleCallRun(store, await startCallRun(store, CALL), {
      type: "unanswered",
      status: "cancelled",
    });
    expect(await store.loadRun(interrupted.runId)).toMatchObject({
      status: "cancelled",
      calls: [],
      pending: [{ status: "queued" }],
    });
  });

  it("of two claims made against one version, exactly one wins, and the loser cannot save an answer", async () => {
    const store = new InMemoryRunStore();
    const waiting = await settleCallRun(store, await startCallRun(store, CALL), {
      type: "held",
      requestId: "req_1",
    });
    const [first, second] = await Promise.all([
      claimCallRun(store, waiting, { owner: "a" }),
      claimCallRun(store, waiting, { owner: "b" }),
    ]);
    expect([first, second].filter((claim) => claim !== undefined)).toHaveLength(1);
    expect((await store.loadRun(waiting.runId))?.owner).toBe("a");
    const late = settleCallRun(store, waiting, { type: "unanswered", status: "failed" });
    await expect(late).rejects.toMatchObject({ code: "run_conflict" });
    expect((await store.loadRun(waiting.runId))?.status).toBe("running");
  });

  it("refuses to claim a completed run, or a running one unless its process is gone", async () => {
    const store = new InMemoryRunStore();
    const running = await startCallRun(store, CALL);
    await expect(claimCallRun(store, running, { owner: "b" })).rejects.toMatchObject({
      code: "run_not_resumable",
    });
    const taken = await claimCallRun(store, running, {
      owner: "b",
      canTakeOver: (run) => run.owner === null,
    });
    expect(taken).toMatchObject({ status: "running", owner: "b" });
    const observation = {
      type: "observation",
      ok: true,
      callId: "c",
      toolName: "write_note",
      output: 1,
    } as const;
    const done = await settleCallRun(store, taken as NonNullable<typeof taken>, {
      type: "answered",
      observation,
    });
    await expect(claimCallRun(store, done, { owner: "c" })).rejects.toMatchObject({
      code: "run_not_resumable",
    });
    expect(await store.loadRun(done.runId)).toEqual(done);
  });

  it("is never driven by a model: resumeRun and continueRun refuse it, leaving it unchanged", async () => {
    const harness = createHarness();
    const waiting = await settleCallRun(harness.store, await startCallRun(harness.store, CALL), {
      type: "held",
      requestId: "req_1",
    });
    const env = harness.env(createScriptedModel([]));
    await expect(resumeRun(env, { runId: waiting.runId })).rejects.toMatchObject({
      code: "run_not_resumable",
    });
    await expect(continueRun(env, { runId: waiting.runId, prompt: "more" })).rejects.toSatisfy(
      (error: unknown) => LoopError.isInstance(error) && error.code === "run_not_continuable",
    );
    expect(await harness.store.loadRun(waiting.runId)).toEqual(waiting);
  });

  it("refuses to read an agent run as a one-call run", async () => {
    const store = new InMemoryRunStore();
    const started = await startCallRun(store, CALL);
    expect(() => callOfCallRun({ ...started, maxTurns: 5 })).toThrow(/not a one-call run/);
  });
});
