import type { ModelResult, ModelTurn } from "../../model-client.js";
import type { DecodedModelRequest } from "./decode-helpers.js";

/** The wire API a request to the fake model server used. */
export type FakeModelApi = "openai" | "anthropic";

/** One request the fake model server received, as it arrived on the wire. */
export interface FakeModelServerRequest {
  /** Which wire API the request used (by its path). */
  readonly api: FakeModelApi;
  readonly method: string;
  readonly path: string;
  /** Request headers, names lowercased (this includes the credential the client sent). */
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
  /** Whether the client asked for a streamed (SSE) answer. */
  readonly stream: boolean;
  /**
   * The body decoded back into the provider-neutral request (system, messages, tools, output
   * limit), the shape the scripted model records, so one assertion fits both wire APIs; undefined
   * when the body was no JSON object.
   */
  readonly modelRequest: DecodedModelRequest | undefined;
  /** Whether the whole answer was written; false while it is being written and when the client hung up first. */
  completed: boolean;
  /** Whether the connection has closed (answer written, or the client went away). */
  closed: boolean;
}

/** An answer with an HTTP error status and the API's error body (or `body` verbatim). */
export interface FakeStatusReply {
  kind: "status";
  status: number;
  headers?: Record<string, string>;
  /** Sent as JSON instead of the API's usual error body. */
  body?: unknown;
  /** The error message inside the API's usual error body. */
  message?: string;
}

/**
 * No (complete) answer: the server holds the connection open until the client closes it. With
 * `partial`, it first sends the start of the answer: the headers and the first bytes of a JSON body,
 * or a stream's opening events with `streamText` (a mid-stream hang).
 */
export interface FakeHangReply {
  kind: "hang";
  partial?: boolean;
  /** Text sent in a partial stream before the silence; implies `partial`. */
  streamText?: string;
}

/**
 * A broken answer: `invalid_json` sends a body (or, when streaming, an event after a valid start)
 * that is not JSON; `truncated` starts a stream and ends it without its final events.
 */
export interface FakeMalformedReply {
  kind: "malformed";
  form?: "invalid_json" | "truncated";
}

/**
 * An error after the answer started: a streaming request gets the stream's opening, then the API's
 * error event (Anthropic `event: error`, OpenAI a `data:` chunk with `error`), then the end. A JSON
 * request gets `status` (default 500) instead. `errorType` is the API's error type, e.g.
 * `overloaded_error` (Anthropic) or `server_error` (OpenAI).
 */
export interface FakeStreamErrorReply {
  kind: "stream_error";
  errorType?: string;
  message?: string;
  status?: number;
}

/** What the fake server does instead of answering with a turn. */
export type FakeServerReply = FakeStatusReply | FakeHangReply | FakeMalformedReply | FakeStreamErrorReply;

/**
 * One scripted answer of the fake model server. A {@link ModelTurn} is sent in the wire format of the
 * request (JSON or SSE); a {@link ModelFailure} is sent as its HTTP status (authentication 401,
 * rate_limited 429, unavailable 503, bad_request 400, or its own `status`); invalid_response as a
 * malformed answer, timeout and cancelled as a hang. A function receives the request as received.
 */
export type FakeServerStep =
  | ModelResult
  | FakeServerReply
  | ((
      request: FakeModelServerRequest,
    ) => ModelResult | FakeServerReply | Promise<ModelResult | FakeServerReply>);

/** An HTTP error answer, e.g. `statusReply(429, { headers: { "retry-after-ms": "10" } })`. */
export function statusReply(
  status: number,
  options: Omit<FakeStatusReply, "kind" | "status"> = {},
): FakeStatusReply {
  return { kind: "status", status, ...options };
}

/** A reply that never comes (for timeout and cancellation tests); see {@link FakeHangReply}. */
export function hangReply(options: Omit<FakeHangReply, "kind"> = {}): FakeHangReply {
  return { kind: "hang", ...options };
}

/** A broken answer (for invalid-response tests); see {@link FakeMalformedReply}. */
export function malformedReply(form: FakeMalformedReply["form"] = "invalid_json"): FakeMalformedReply {
  return { kind: "malformed", form };
}

const FAILURE_STATUS = {
  model_authentication: 401,
  model_rate_limited: 429,
  model_unavailable: 503,
  model_bad_request: 400,
} as const;

/** An error event in the middle of a stream (see {@link FakeStreamErrorReply}). */
export function streamErrorReply(options: Omit<FakeStreamErrorReply, "kind"> = {}): FakeStreamErrorReply {
  return { kind: "stream_error", ...options };
}

/** Resolves a step into what to send: a turn, or a reply that is not one. */
export async function resolveStep(
  step: FakeServerStep,
  request: FakeModelServerRequest,
): Promise<ModelTurn | FakeServerReply> {
  const resolved = typeof step === "function" ? await step(request) : step;
  if ("kind" in resolved || resolved.ok) return resolved;
  switch (resolved.code) {
    case "model_invalid_response":
      return malformedReply();
    case "model_timeout":
    case "model_cancelled":
      return hangReply();
    default:
      return statusReply(resolved.status ?? FAILURE_STATUS[resolved.code], { message: resolved.message });
  }
}
