import { createAnthropicModel, createOpenAiModel, type ModelClient } from "@agent/models";
import type { AgentConfig } from "../config/index.js";
import { type ModelConfig, readApiKey } from "../config/model-config.js";
import { CliExit, EXIT_CODES } from "../exit-codes.js";
import type { CliIo } from "../terminal/io.js";

/** The configured model, or exit 2 saying how to configure one. */
export function requireModelConfig(config: AgentConfig): ModelConfig {
  if (config.model) return config.model;
  throw new CliExit(
    EXIT_CODES.usage,
    `No model is configured: add a "model" entry to ${config.file}, e.g. { "provider": "openai", "name": "gpt-4.1-mini" } (the key comes from OPENAI_API_KEY).`,
  );
}

/**
 * The client for the configured model, its key read from the environment variable the
 * configuration names (exit 2 naming that variable when it is unset; the key is never printed).
 */
export function createConfiguredModel(model: ModelConfig, io: CliIo): ModelClient {
  const apiKey = readApiKey(model, io.env);
  const options = {
    model: model.name,
    apiKey,
    ...(model.baseUrl === undefined ? {} : { baseUrl: model.baseUrl }),
  };
  return model.provider === "openai" ? createOpenAiModel(options) : createAnthropicModel(options);
}
