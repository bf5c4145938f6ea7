/**
 * Multi-round-trip requests (SEP-2322, 2026-07-28): a stateless server that needs something from the
 * client (an elicitation, a sampling, the roots) answers with an `InputRequiredResult` instead of
 * sending a request of its own. The client answers each input request through the same handler a
 * server-to-client request of that method would reach (so the gate, the operator and the audit see it
 * exactly as before), then retries the original request, with a new id, carrying the answers and the
 * server's `requestState` as it came. The state is the server's, not ours: it is bounded, passed on
 * byte for byte, never parsed, and never written into a message, event or error.
 */
import {
  MCP_ERROR_CODES,
  type McpError,
  type McpRequestAnswer,
  type McpRequestHandler,
} from "../transport.js";
import { isRecord } from "./envelope.js";

/** The bounds an `InputRequiredResult` must keep; a result past one fails the request. */
export const INPUT_REQUIRED_LIMITS = {
  /** Rounds of input before the request is given up (a server that never completes must not loop). */
  maxRounds: 8,
  /** Input requests in one result. */
  maxInputRequests: 16,
  /** UTF-8 bytes of one `requestState`. */
  maxRequestStateBytes: 64 * 1024,
} as const;

/** The `resultType` of a result that asks for input before it can complete. */
export const INPUT_REQUIRED = "input_required";

/** What the retry adds to the original request's params. */
export interface InputContinuation {
  inputResponses: Record<string, Record<string, unknown>>;
  /** Present exactly when the server sent one, as it sent it. */
  requestState?: string;
}

/** An answered round, or why the request fails. */
export type InputRound = { ok: true; continuation: InputContinuation } | { ok: false; error: McpError };

/** Whether a result asks for input (a result without `resultType` is complete). */
export function isInputRequired(result: unknown): result is Record<string, unknown> {
  return isRecord(result) && result.resultType === INPUT_REQUIRED;
}

function invalid(reason: string): { ok: false; error: McpError } {
  return {
    ok: false,
    error: {
      code: MCP_ERROR_CODES.internalError,
      message: `The server's input_required result is invalid: ${reason}.`,
    },
  };
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).length;
}

/** Checks a result's shape and bounds before anything is answered; never reads `requestState`'s content. */
function readInputRequests(
  result: Record<string, unknown>,
): { ok: true; requests: [string, { method: string; params: unknown }][] } | { ok: false; error: McpError } {
  const { inputRequests, requestState } = result;
  if (requestState !== undefined) {
    if (typeof requestState !== "string") return invalid("requestState is not a string");
    if (utf8Length(requestState) > INPUT_REQUIRED_LIMITS.maxRequestStateBytes) {
      return invalid(
        `requestState is larger than ${INPUT_REQUIRED_LIMITS.maxRequestStateBytes} bytes (${utf8Length(requestState)})`,
      );
    }
  }
  if (!isRecord(inputRequests)) return invalid("inputRequests is not an object");
  const entries = Object.entries(inputRequests);
  if (entries.length === 0) return invalid("inputRequests is empty");
  if (entries.length > INPUT_REQUIRED_LIMITS.maxInputRequests) {
    return invalid(`more than ${INPUT_REQUIRED_LIMITS.maxInputRequests} input requests`);
  }
  const requests: [string, { method: string; params: unknown }][] = [];
  for (const [key, request] of entries) {
    if (!isRecord(request) || typeof request.method !== "string") {
      return invalid(`input request ${JSON.stringify(key.slice(0, 64))} has no method`);
    }
    requests.push([key, { method: request.method, params: request.params }]);
  }
  return { ok: true, requests };
}

/**
 * Answers one round's input requests, one after another, each through the handler registered for its
 * method; a method without one, or a handler's error, fails the request (nothing is retried).
 */
export async function answerInputRequests(
  result: Record<string, unknown>,
  handlers: ReadonlyMap<string, McpRequestHandler>,
  signal: AbortSignal,
): Promise<InputRound> {
  const read = readInputRequests(result);
  if (!read.ok) return read;
  const inputResponses: Record<string, Record<string, unknown>> = {};
  for (const [key, request] of read.requests) {
    const handler = handlers.get(request.method);
    if (!handler) {
      return {
        ok: false,
        error: {
          code: MCP_ERROR_CODES.methodNotFound,
          message: `The server asked for input by ${JSON.stringify(request.method.slice(0, 64))}, which this client does not offer.`,
        },
      };
    }
    let answer: McpRequestAnswer;
    try {
      answer = await handler(request.params, { signal });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { ok: false, error: { code: MCP_ERROR_CODES.internalError, message } };
    }
    if (!answer.ok) return answer;
    inputResponses[key] = answer.result;
  }
  const { requestState } = result;
  return {
    ok: true,
    continuation: typeof requestState === "string" ? { inputResponses, requestState } : { inputResponses },
  };
}
