import { describe, expect, it } from "vitest";
import { ToolCallAssembler } from "../src/openai/openai-messages.js";

describe("ToolCallAssembler", () => {
  it("assembles interleaved deltas by index, in index order", () => {
    const assembler = new ToolCallAssembler();
    assembler.add([{ index: 1, id: "b", function: { name: "two", arguments: "" } }]);
    assembler.add([{ index: 0, id: "a", function: { name: "one", arguments: '{"x"' } }]);
    assembler.add([
      { index: 1, function: { arguments: "{}" } },
      { index: 0, function: { arguments: ":1}" } },
    ]);
    expect(assembler.calls()).toEqual([
      { id: "a", name: "one", arguments: '{"x":1}' },
      { id: "b", name: "two", arguments: "{}" },
    ]);
  });

  it("copes with servers that omit the index or the id", () => {
    const assembler = new ToolCallAssembler();
    const withoutIndex = (delta: object) => delta as { index: number };
    assembler.add([withoutIndex({ id: "a", function: { name: "one", arguments: "{" } })]);
    assembler.add([withoutIndex({ function: { arguments: "}" } })]);
    assembler.add([withoutIndex({ id: "b", function: { name: "two", arguments: "{}" } })]);
    assembler.add([{ index: 5, function: { name: "three", arguments: "{}" } }]);
    expect(assembler.calls()).toEqual([
      { id: "a", name: "one", arguments: "{}" },
      { id: "b", name: "two", arguments: "{}" },
      { id: "call_5", name: "three", arguments: "{}" },
    ]);
  });
});
