import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { readApiKey } from "../src/config/model-config.js";
import { CliExit } from "../src/exit-codes.js";
import { loadError, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

describe("the model key of the configuration", () => {
  it("fills in the key variable and turn limit by provider", () => {
    const openai = loadConfig(writeConfig({ model: { provider: "openai", name: "gpt-4.1-mini" } }), {});
    expect(openai.model).toEqual({
      provider: "openai",
      name: "gpt-4.1-mini",
      baseUrl: undefined,
      apiKeyEnv: "OPENAI_API_KEY",
      maxTurns: 20,
      maxTokens: undefined,
      maxCallsPerTurn: undefined,
      maxArgumentChars: undefined,
      system: undefined,
    });
    const anthropic = loadConfig(
      writeConfig({
        model: {
          provider: "anthropic",
          name: "claude",
          maxTurns: 5,
          maxTokens: 50_000,
          maxCallsPerTurn: 8,
          maxArgumentChars: 20_000,
          system: "Be brief.",
          prices: { inputPerMillion: 3, outputPerMillion: 15 },
        },
      }),
      {},
    );
    expect(anthropic.model).toMatchObject({
      apiKeyEnv: "ANTHROPIC_API_KEY",
      maxTurns: 5,
      maxTokens: 50_000,
      maxCallsPerTurn: 8,
      maxArgumentChars: 20_000,
      system: "Be brief.",
      prices: { inputPerMillion: 3, outputPerMillion: 15 },
    });
    expect(loadConfig(writeConfig({}), {}).model).toBeUndefined();
  });

  it("names each bad field, and refuses a key in the file without showing it", () => {
    const error = loadError(
      writeConfig({
        model: {
          provider: "mistral",
          name: "",
          baseUrl: "ftp://x",
          apiKeyEnv: "NOT-A-NAME",
          maxTurns: 0,
          maxTokens: -5,
          maxCallsPerTurn: 0,
          maxArgumentChars: 1.5,
          apiKey: "sk-do-not-print-me",
          prices: { inputPerMillion: -1, outputPerMillion: 2, currency: "EUR" },
        },
      }),
    );
    for (const field of [
      "model.provider",
      "model.name",
      "model.baseUrl",
      "model.apiKeyEnv",
      "model.maxTurns",
      "model.maxTokens",
      "model.maxCallsPerTurn",
      "model.maxArgumentChars",
      "model.apiKey",
      "model.prices.inputPerMillion",
      "model.prices",
    ]) {
      expect(error.message).toContain(field);
    }
    expect(error.message).not.toContain("sk-do-not-print-me");
  });

  it("reads the key from the named variable only, and says which one is missing", () => {
    const model = loadConfig(
      writeConfig({ model: { provider: "openai", name: "m", apiKeyEnv: "MY_KEY" } }),
      {},
    ).model;
    if (!model) throw new Error("no model");
    expect(readApiKey(model, { MY_KEY: "sk-123" })).toBe("sk-123");
    expect(() => readApiKey(model, { OPENAI_API_KEY: "sk-other" })).toThrow(CliExit);
    expect(() => readApiKey(model, { MY_KEY: "" })).toThrow(/MY_KEY/);
  });
});
