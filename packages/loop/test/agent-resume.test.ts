import { resumeRun, startRun } from "@agent/loop";
import type { ModelMessage, ModelRequest } from "@agent/models";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { grantApprovalRequest } from "@agent/policy";
import { defineTool } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHarness, textCallsThen } from "./helpers.js";

type SeenRequest = Omit<ModelRequest, "signal" | "onText">;

function toolResults(request: SeenRequest | undefined): Array<Extract<ModelMessage, { role: "tool" }>> {
  return (request?.messages ?? []).filter(
    (message): message is Extract<ModelMessage, { role: "tool" }> => message.role === "tool",
  );
}

describe("waiting and resuming", () => {
  it("holds a call for approval, saves the run, and resumes it without asking the model again for that turn", async () => {
    const harness = createHarness();
    const model = textCallsThen(
      [
        ["tc_echo", "echo", "first"],
        ["tc_write", "write_note", "hello"],
      ],
      "all done",
    );
    const env = harness.env(model);
    const waiting = await startRun(env, { prompt: "note hello" });
    expect(waiting).toMatchObject({ status: "waiting", output: null, turns: 1 });
    expect(waiting.requestIds).toHaveLength(1);
    expect(harness.executed).toEqual({ echo: [{ text: "first" }] });
    expect(model.requests).toHaveLength(1);
    const saved = await harness.store.loadRun(waiting.runId);
    expect(saved?.pending.map((call) => call.status)).toEqual(["done", "held"]);
    expect(harness.events.ofType("run_waiting")[0]).toMatchObject({
      requestIds: waiting.requestIds,
      turn: 1,
    });

    // Resuming before anyone decided: still held, nothing ran, the model was not asked.
    const stillWaiting = await resumeRun(env, { runId: waiting.runId });
    expect(stillWaiting).toMatchObject({ status: "waiting", requestIds: waiting.requestIds });
    expect(model.requests).toHaveLength(1);

    await grantApprovalRequest(harness.approvals, waiting.requestIds[0] as string);
    const done = await resumeRun(env, { runId: waiting.runId });
    expect(done).toMatchObject({ status: "completed", output: "all done", turns: 2 });
    // The echo that completed before the wait ran once; the held write ran once, after approval.
    expect(harness.executed).toEqual({ echo: [{ text: "first" }], write_note: [{ text: "hello" }] });
    expect(model.requests).toHaveLength(2);
    expect(toolResults(model.requests[1]).map((message) => [message.toolCallId, message.content])).toEqual([
      ["tc_echo", "first"],
      ["tc_write", "wrote hello"],
    ]);
    expect(harness.events.ofType("run_resumed")).toHaveLength(2);
    expect(harness.events.ofType("approval_consumed")).toHaveLength(1);
  });

  it("refuses to resume a completed run, a missing one, and one running elsewhere", async () => {
    const harness = createHarness();
    const model = createScriptedModel([textTurn("done")]);
    const env = harness.env(model);
    const done = await startRun(env, { prompt: "x" });
    await expect(resumeRun(env, { runId: done.runId })).rejects.toMatchObject({ code: "run_not_resumable" });
    await expect(resumeRun(env, { runId: "run_missing" })).rejects.toMatchObject({ code: "run_not_found" });
    const run = await harness.store.loadRun(done.runId);
    await harness.store.updateRun(done.runId, run?.version ?? 0, { set: { status: "running" } });
    await expect(resumeRun(env, { runId: done.runId })).rejects.toMatchObject({ code: "run_not_resumable" });
  });

  it("needs a new approval for a held call whose tool changed while the run waited, and shows the new tools", async () => {
    const harness = createHarness();
    const model = textCallsThen([["tc_write", "write_note", "hi"]], "done");
    const env = harness.env(model);
    const waiting = await startRun(env, { prompt: "write" });
    const firstRequest = waiting.requestIds[0] as string;
    await grantApprovalRequest(harness.approvals, firstRequest);

    // The definitions change (as a server's list_changed would): the grant was for the old one.
    harness.tools.replaceGroup("notes", [
      defineTool({
        name: "write_note",
        description: "Writes a note, differently now.",
        effect: "write",
        group: "notes",
        schema: z.object({ text: z.string() }),
        execute: () => "ran with a new approval",
      }),
      defineTool({
        name: "notes_v2",
        description: "A new tool.",
        effect: "read",
        group: "notes",
        schema: z.object({}),
        execute: () => "v2",
      }),
    ]);

    const again = await resumeRun(env, { runId: waiting.runId });
    expect(again.status).toBe("waiting");
    expect(again.requestIds[0]).not.toBe(firstRequest);
    expect(harness.events.ofType("run_resumed")[0]).toMatchObject({ toolSetChanged: true });
    expect(harness.executed.write_note).toBeUndefined();
    expect(harness.events.ofType("approval_consumed")).toHaveLength(0);

    await grantApprovalRequest(harness.approvals, again.requestIds[0] as string);
    const done = await resumeRun(env, { runId: waiting.runId });
    expect(done.status).toBe("completed");
    const offered = (model.requests[1]?.tools ?? []).map((tool) => [tool.name, tool.description]);
    expect(offered).toContainEqual(["notes_v2", "A new tool."]);
    expect(offered).toContainEqual(["write_note", "Writes a note, differently now."]);
  });

  it("cancels the model request on abort, saves the run resumable, and resumes it", async () => {
    const harness = createHarness();
    const controller = new AbortController();
    const model = createScriptedModel([
      async (request) => {
        controller.abort();
        return request.signal.aborted
          ? { ok: false, code: "model_cancelled", message: "cancelled" }
          : textTurn("not reached");
      },
      textTurn("second try"),
    ]);
    const cancelled = await startRun(harness.env(model, { signal: controller.signal }), { prompt: "hi" });
    expect(cancelled).toMatchObject({ status: "cancelled", turns: 0 });
    expect((await harness.store.loadRun(cancelled.runId))?.status).toBe("cancelled");
    const resumed = await resumeRun(harness.env(model), { runId: cancelled.runId });
    expect(resumed).toMatchObject({ status: "completed", output: "second try", turns: 1 });
  });

  it("cancels a running tool call on abort, keeps it to run again, and never repeats the model turn", async () => {
    const harness = createHarness();
    const controller = new AbortController();
    const model = createScriptedModel([
      toolCallTurn([
        { id: "tc_echo", name: "echo", input: { text: "kept" } },
        { id: "tc_slow", name: "slow", input: {} },
      ]),
      textTurn("finished"),
    ]);
    harness.events.emit = ((emit) => (event) => {
      emit(event);
      if (event.type === "tool_call_decided" && event.toolName === "slow")
        setImmediate(() => controller.abort());
    })(harness.events.emit.bind(harness.events));
    const cancelled = await startRun(
      harness.env(model, { signal: controller.signal, maxConcurrentCalls: 1 }),
      {
        prompt: "go",
      },
    );
    expect(cancelled.status).toBe("cancelled");
    const saved = await harness.store.loadRun(cancelled.runId);
    expect(saved?.pending.map((call) => call.status)).toEqual(["done", "queued"]);
    expect(saved?.calls.map((call) => call.toolName)).toEqual(["echo"]);

    // On resume the interrupted call runs again (here it times out: the model reads that).
    const resumed = await resumeRun(harness.env(model, { toolTimeoutMs: 50 }), { runId: cancelled.runId });
    expect(resumed.status).toBe("completed");
    expect(model.requests).toHaveLength(2);
    expect(harness.executed.echo).toHaveLength(1);
    expect(harness.executed.slow).toHaveLength(2);
    expect(JSON.parse(toolResults(model.requests[1])[1]?.content ?? "").error).toBe("timeout");
  });
});
