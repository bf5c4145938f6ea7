import { describe, expect, it } from "vitest";
import { createAnthropicModel, createOpenAiModel, ModelClientError } from "../src/index.js";

const VALID = { model: "m", apiKey: "sk-abcdef123456" };

describe.each([
  ["createOpenAiModel", createOpenAiModel],
  ["createAnthropicModel", createAnthropicModel],
] as const)("%s options", (name, create) => {
  it.each([
    ["an empty model", { ...VALID, model: " " }, "`model`"],
    ["a key that is no string", { ...VALID, apiKey: 42 }, "`apiKey`"],
    ["a baseUrl that is no http(s) URL", { ...VALID, baseUrl: "file:///etc" }, "`baseUrl`"],
    ["a zero timeout", { ...VALID, timeoutMs: 0 }, "`timeoutMs`"],
    ["fractional retries", { ...VALID, maxRetries: 1.5 }, "`maxRetries`"],
    ["a fetch that is no function", { ...VALID, fetch: "fetch" }, "`fetch`"],
  ])("throws ModelClientError for %s, naming the option", (_label, options, option) => {
    let thrown: unknown;
    try {
      create(options as never);
    } catch (error) {
      thrown = error;
    }
    expect(ModelClientError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({ code: "invalid_argument" });
    expect((thrown as Error).message).toContain(name);
    expect((thrown as Error).message).toContain(option);
  });

  it("accepts valid options and names its provider and model", () => {
    const model = create({ ...VALID, baseUrl: "http://127.0.0.1:11434/v1", timeoutMs: 1000, maxRetries: 0 });
    expect(model.model).toBe("m");
    expect(model.provider).toBe(name === "createOpenAiModel" ? "openai" : "anthropic");
  });
});

describe("ModelClientError.isInstance", () => {
  it("recognizes the error by its marker, not by class identity", () => {
    expect(ModelClientError.isInstance(new ModelClientError("invalid_argument", "x"))).toBe(true);
    expect(ModelClientError.isInstance({ [Symbol.for("@agent/models.ModelClientError")]: true })).toBe(true);
    expect(ModelClientError.isInstance(new Error("x"))).toBe(false);
  });

  it("rejects a non-positive maxOutputTokens for Anthropic", () => {
    expect(() => createAnthropicModel({ ...VALID, maxOutputTokens: 0 })).toThrow(/maxOutputTokens/);
  });
});
