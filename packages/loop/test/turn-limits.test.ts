import { startRun } from "@agent/loop";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect, it } from "vitest";
import { createHarness, textCallsThen } from "./helpers.js";

function calls(count: number, name: string) {
  return Array.from({ length: count }, (_, index) => ({
    id: `tc_${index}`,
    name,
    input: { text: `n${index}` },
  }));
}

describe("the limits of one model turn", () => {
  it("runs at most maxCallsPerTurn calls; the rest are answered too_many_calls and never run", async () => {
    const harness = createHarness();
    const model = createScriptedModel([toolCallTurn(calls(1_000, "echo")), textTurn("done")]);
    const result = await startRun(harness.env(model, { maxCallsPerTurn: 5 }), { prompt: "echo" });
    expect(result.status).toBe("completed");
    expect(harness.executed.echo).toHaveLength(5);
    const answers = result.state.messages.filter((message) => message.role === "tool");
    expect(answers).toHaveLength(1_000);
    expect(
      answers.slice(5).every((answer) => answer.isError && answer.content.includes("too_many_calls")),
    ).toBe(true);
  });

  it("asks for no approval for the calls past the limit", async () => {
    const harness = createHarness();
    const model = createScriptedModel([toolCallTurn(calls(1_000, "write_note"))]);
    const result = await startRun(harness.env(model, { maxCallsPerTurn: 3 }), { prompt: "write" });
    expect(result.status).toBe("waiting");
    // Three held calls, three requests: not a thousand.
    expect(await harness.approvals.listApprovals()).toHaveLength(3);
    expect(harness.executed.write_note).toBeUndefined();
  });

  it("answers arguments past maxArgumentChars with arguments_too_large, never runs them and keeps only their size", async () => {
    const harness = createHarness();
    const huge = "y".repeat(2_000_000);
    const model = textCallsThen(
      [
        ["tc_big", "write_note", huge],
        ["tc_ok", "echo", "small"],
      ],
      "done",
    );
    const result = await startRun(harness.env(model, { maxArgumentChars: 10_000 }), { prompt: "write" });
    expect(result.status).toBe("completed");
    expect(harness.executed.write_note).toBeUndefined();
    expect(harness.executed.echo).toEqual([{ text: "small" }]);
    expect(await harness.approvals.listApprovals()).toEqual([]);
    const saved = await harness.store.loadRun(result.runId);
    // Nowhere in the saved run: not in the transcript, not in the call records.
    expect(JSON.stringify(saved).length).toBeLessThan(20_000);
    const [first] = saved?.messages.filter((message) => message.role === "tool") ?? [];
    expect(first?.content).toContain("arguments_too_large");
    expect(first?.content).toContain(`${JSON.stringify({ text: huge }).length} characters`);
  });

  it("keeps both limits at their defaults (32 calls, 100,000 characters) when none are given", async () => {
    const harness = createHarness();
    const model = createScriptedModel([toolCallTurn(calls(40, "echo")), textTurn("done")]);
    await startRun(harness.env(model), { prompt: "echo" });
    expect(harness.executed.echo).toHaveLength(32);
  });

  it("refuses limits that are not positive integers", async () => {
    const harness = createHarness();
    const model = createScriptedModel([textTurn("done")]);
    await expect(startRun(harness.env(model, { maxCallsPerTurn: 0 }), { prompt: "x" })).rejects.toMatchObject(
      {
        code: "invalid_options",
      },
    );
  });
});
