import { describe, expect, it } from "vitest";
import { createScriptedModel, textTurn, toolCallTurn } from "../src/testing/index.js";

describe("createScriptedModel", () => {
  it("answers in order, records requests, and fails past the end of its script", async () => {
    const model = createScriptedModel([
      toolCallTurn([{ id: "c1", name: "echo", input: { a: 1 } }]),
      textTurn("done"),
    ]);
    const signal = new AbortController().signal;
    const seen: string[] = [];
    const first = await model.createTurn({ messages: [{ role: "user", content: "hi" }], tools: [], signal });
    expect(first).toMatchObject({ ok: true, toolCalls: [{ id: "c1", name: "echo", arguments: '{"a":1}' }] });
    const second = await model.createTurn({ messages: [], tools: [], signal, onText: (d) => seen.push(d) });
    expect(second).toMatchObject({ ok: true, text: "done", stopReason: "end_turn" });
    expect(seen).toEqual(["done"]);
    expect(await model.createTurn({ messages: [], tools: [], signal })).toMatchObject({
      ok: false,
      code: "model_invalid_response",
    });
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: "hi" }]);
  });
});
