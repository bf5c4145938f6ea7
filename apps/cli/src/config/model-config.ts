import { z } from "zod";
import { CliExit, EXIT_CODES } from "../exit-codes.js";
import type { Environment } from "./expand-variables.js";

/** The model `agent run` drives: the configuration file's `model` key, defaults filled in. */
export interface ModelConfig {
  provider: "openai" | "anthropic";
  /** The model's name as the API knows it. */
  name: string;
  /** Where the API lives (any OpenAI-compatible server for `openai`); the hosted API when unset. */
  baseUrl: string | undefined;
  /** The environment variable holding the API key; the key itself is never in the file. */
  apiKeyEnv: string;
  maxTurns: number;
  /** The token budget of each run (input plus output, all turns); no budget when unset. */
  maxTokens: number | undefined;
  /** The most tool calls one model turn may make (the loop's default when unset). */
  maxCallsPerTurn: number | undefined;
  /** The longest arguments, in characters, one tool call may have (the loop's default when unset). */
  maxArgumentChars: number | undefined;
  system: string | undefined;
  /** What the model costs, as its provider lists it; without it only tokens are shown, never a cost. */
  prices: ModelPrices | undefined;
}

/** Prices of a model in US dollars per million tokens, as the configuration gives them. */
export interface ModelPrices {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** The variable read for the key when `apiKeyEnv` is not set, by provider. */
export const DEFAULT_API_KEY_ENV = { openai: "OPENAI_API_KEY", anthropic: "ANTHROPIC_API_KEY" } as const;

/** The turn limit when neither `model.maxTurns` nor `--max-turns` says. */
export const DEFAULT_RUN_MAX_TURNS = 20;

/** The most turns a run may be given, so a typo cannot buy an unbounded bill. */
export const MAX_RUN_TURNS = 1_000;

/** A turn limit: a whole number from 1 to {@link MAX_RUN_TURNS}. */
export const MAX_TURNS_SCHEMA: z.ZodNumber = z
  .number()
  .int()
  .min(1)
  .max(MAX_RUN_TURNS, { message: `must be at most ${MAX_RUN_TURNS}` });

/** A run's token budget: a whole number of at least 1 (input plus output tokens of all its turns). */
export const MAX_TOKENS_SCHEMA: z.ZodNumber = z
  .number()
  .int({ message: "must be a whole number of tokens" })
  .min(1, { message: "must be at least 1" });

/** A bound of one model turn (`maxCallsPerTurn`, `maxArgumentChars`): a whole number of at least 1. */
const TURN_LIMIT_SCHEMA: z.ZodNumber = z
  .number()
  .int({ message: "must be a whole number" })
  .min(1, { message: "must be at least 1" });

/** The JSON form of `model`. An `apiKey` key is refused with a pointer to `apiKeyEnv`. */
export const MODEL_CONFIG_SCHEMA = z
  .strictObject({
    provider: z.enum(["openai", "anthropic"]),
    name: z.string().min(1, { message: "may not be empty" }),
    baseUrl: z
      .string()
      .refine(isHttpUrl, {
        message: "must be an absolute http: or https: URL, e.g. http://127.0.0.1:11434/v1",
      })
      .optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
        message: "must be an environment variable name, e.g. OPENAI_API_KEY",
      })
      .optional(),
    maxTurns: MAX_TURNS_SCHEMA.optional(),
    maxTokens: MAX_TOKENS_SCHEMA.optional(),
    maxCallsPerTurn: TURN_LIMIT_SCHEMA.optional(),
    maxArgumentChars: TURN_LIMIT_SCHEMA.optional(),
    system: z.string().optional(),
    prices: z
      .strictObject({
        inputPerMillion: z.number().nonnegative({ message: "must be a price of at least 0 (dollars)" }),
        outputPerMillion: z.number().nonnegative({ message: "must be a price of at least 0 (dollars)" }),
      })
      .optional(),
    // Refused with a pointer to apiKeyEnv rather than as an unknown key: say what to do instead.
    apiKey: z
      .unknown()
      .refine(() => false, {
        message:
          'API keys are never read from the file: remove it, put the key in an environment variable and name that variable in "apiKeyEnv"',
      })
      .optional(),
  })
  .optional();

/** Fills in the defaults of a validated `model` entry. */
export function toModelConfig(entry: NonNullable<z.output<typeof MODEL_CONFIG_SCHEMA>>): ModelConfig {
  return {
    provider: entry.provider,
    name: entry.name,
    baseUrl: entry.baseUrl,
    apiKeyEnv: entry.apiKeyEnv ?? DEFAULT_API_KEY_ENV[entry.provider],
    maxTurns: entry.maxTurns ?? DEFAULT_RUN_MAX_TURNS,
    maxTokens: entry.maxTokens,
    maxCallsPerTurn: entry.maxCallsPerTurn,
    maxArgumentChars: entry.maxArgumentChars,
    system: entry.system,
    prices: entry.prices,
  };
}

/**
 * The API key from the environment variable the configuration names; exit 2 naming the variable
 * (never a value) when it is unset or empty.
 */
export function readApiKey(model: ModelConfig, env: Environment): string {
  const key = env[model.apiKeyEnv];
  if (key === undefined || key === "") {
    const hint =
      model.baseUrl === undefined
        ? ""
        : ` A local server that needs no key accepts any value (e.g. export ${model.apiKeyEnv}=local).`;
    throw new CliExit(
      EXIT_CODES.usage,
      `The model's API key is missing: set the environment variable ${model.apiKeyEnv} (named by "model.apiKeyEnv").${hint}`,
    );
  }
  return key;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
