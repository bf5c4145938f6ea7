import { MODEL_CLIENT_ERROR_CODES, ModelClientError } from "./errors.js";
import { guardSilentBodies } from "./silent-body-guard.js";

/** Options every SDK adapter takes. */
export interface AdapterOptions {
  /** The model's name as the API knows it, e.g. `"gpt-4.1-mini"`. */
  model: string;
  /** The API key, sent as the SDK sends it; never part of a failure message. Local servers accept any string. */
  apiKey: string;
  /** Where the API lives; defaults to the provider's hosted API. */
  baseUrl?: string;
  /** Per-attempt time limit until an answer starts, and the longest silence tolerated inside it (default 600000). */
  timeoutMs?: number;
  /** Retries of 408/409/429/5xx and connection errors, with the SDK's backoff (default 2). */
  maxRetries?: number;
  /** A `fetch` implementation to use instead of the global one. */
  fetch?: typeof globalThis.fetch;
}

/** Options after validation, with defaults applied. */
export interface ResolvedAdapterOptions {
  model: string;
  apiKey: string;
  baseUrl: string | undefined;
  timeoutMs: number;
  maxRetries: number;
  fetch: typeof globalThis.fetch | undefined;
}

/** The SDKs' own default per-attempt timeout (10 minutes). */
export const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_MAX_RETRIES = 2;

/** Checks adapter options and applies defaults; throws {@link ModelClientError} with a message that says what to fix. */
export function resolveAdapterOptions(factory: string, options: AdapterOptions): ResolvedAdapterOptions {
  const fail = (message: string): never => {
    throw new ModelClientError(MODEL_CLIENT_ERROR_CODES.invalidArgument, `${factory}: ${message}`);
  };
  if (typeof options !== "object" || options === null)
    fail(`options must be an object, got ${typeof options}`);
  if (typeof options.model !== "string" || options.model.trim() === "")
    fail("`model` must be a non-empty string");
  // The value is never echoed: it may be a real key of the wrong type.
  if (typeof options.apiKey !== "string") fail(`\`apiKey\` must be a string, got ${typeof options.apiKey}`);
  if (options.baseUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(options.baseUrl);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:")) {
      fail("`baseUrl` must be an http(s) URL, e.g. http://127.0.0.1:11434/v1");
    }
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    fail(`\`timeoutMs\` must be a positive integer (milliseconds), got ${String(options.timeoutMs)}`);
  }
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) {
    fail(`\`maxRetries\` must be a non-negative integer, got ${String(options.maxRetries)}`);
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    fail(`\`fetch\` must be a function, got ${typeof options.fetch}`);
  }
  return {
    model: options.model,
    apiKey: options.apiKey,
    baseUrl: options.baseUrl,
    timeoutMs,
    maxRetries,
    fetch: options.fetch,
  };
}

/** The client options both SDKs share, from resolved adapter options. */
export function sharedSdkOptions(options: ResolvedAdapterOptions): {
  apiKey: string;
  timeout: number;
  maxRetries: number;
  logLevel: "off";
  fetch: typeof globalThis.fetch;
} {
  return {
    apiKey: options.apiKey,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
    // The SDKs log to the console (stdout) otherwise, which would corrupt a CLI's JSON output.
    logLevel: "off",
    fetch: guardSilentBodies(options.fetch, options.timeoutMs),
  };
}
