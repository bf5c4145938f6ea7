import { describe, expect, it } from "vitest";
import { ToolsError } from "../src/index.js";

describe("ToolsError.isInstance", () => {
  it("recognizes errors of another installed copy by their marker, and nothing else", () => {
    const own = new ToolsError("duplicate_tool", "taken");
    // What a second copy of the package would throw: another class with the same Symbol.for marker.
    const fromAnotherCopy = Object.assign(new Error("taken"), {
      [Symbol.for("@agent/tools.ToolsError")]: true,
    });
    expect(ToolsError.isInstance(own)).toBe(true);
    expect(ToolsError.isInstance(fromAnotherCopy)).toBe(true);
    expect(ToolsError.isInstance(new Error("taken"))).toBe(false);
    expect(ToolsError.isInstance({ code: "duplicate_tool" })).toBe(false);
    expect(ToolsError.isInstance(null)).toBe(false);
  });
});
