import {
  MCP_ERROR_CODES,
  type McpRequestContext,
  type McpRequestHandler,
  type McpResponse,
  mcpFailure,
  toRequestContext,
} from "../transport.js";
import { isRecord } from "./envelope.js";
import { answerInputRequests, INPUT_REQUIRED_LIMITS, isInputRequired } from "./input-required.js";

/** Sends one round of a request (the era wrapper adds the envelope). */
type SendRound = (params: Record<string, unknown>, context: McpRequestContext) => Promise<McpResponse>;

/**
 * Sends a request and, while the server answers `input_required`, answers its input requests through
 * `handlers` and sends the request again with the answers and the untouched `requestState` (a new
 * round, so a new JSON-RPC id). Each round starts from the caller's own params: nothing of one round
 * leaks into another request. The caller's signal cancels every round and every handler, and its
 * `timeoutMs` bounds all rounds together, the time spent waiting on the operator included.
 */
export async function requestWithInput(
  params: unknown,
  context: McpRequestContext | AbortSignal,
  handlers: ReadonlyMap<string, McpRequestHandler>,
  send: SendRound,
): Promise<McpResponse> {
  const caller = toRequestContext(context);
  const base = isRecord(params) ? params : {};
  const started = performance.now();
  const remaining = (): number | undefined =>
    caller.timeoutMs === undefined ? undefined : caller.timeoutMs - (performance.now() - started);
  let roundParams: Record<string, unknown> = base;
  for (let round = 0; ; round += 1) {
    const left = remaining();
    if (left !== undefined && left <= 0) return mcpFailure(MCP_ERROR_CODES.timeout, "request timed out");
    const roundContext: McpRequestContext = { ...caller, ...(left === undefined ? {} : { timeoutMs: left }) };
    const response = await send(roundParams, roundContext);
    if (!response.ok || !isInputRequired(response.result)) return response;
    if (round + 1 >= INPUT_REQUIRED_LIMITS.maxRounds) {
      return mcpFailure(
        MCP_ERROR_CODES.internalError,
        `The server still asked for input after ${INPUT_REQUIRED_LIMITS.maxRounds} rounds; the request was given up.`,
      );
    }
    const answered = await answerWithin(response.result, handlers, caller, remaining());
    if (!answered.ok) return answered;
    roundParams = { ...base, ...answered.continuation };
  }
}

/** One round's answers, cancelled with the caller's signal and cut off at the caller's deadline. */
export async function answerWithin(
  result: Record<string, unknown>,
  handlers: ReadonlyMap<string, McpRequestHandler>,
  caller: McpRequestContext,
  timeoutMs: number | undefined,
): Promise<Awaited<ReturnType<typeof answerInputRequests>>> {
  const controller = new AbortController();
  let timedOut = false;
  const abort = (): void => controller.abort();
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(
          () => {
            timedOut = true;
            controller.abort();
          },
          Math.max(0, timeoutMs),
        );
  const ended = new Promise<"aborted">((resolve) =>
    controller.signal.addEventListener("abort", () => resolve("aborted"), { once: true }),
  );
  if (caller.signal.aborted) controller.abort();
  else caller.signal.addEventListener("abort", abort, { once: true });
  try {
    const answered = await Promise.race([answerInputRequests(result, handlers, controller.signal), ended]);
    if (answered !== "aborted" && !controller.signal.aborted) return answered;
    return timedOut
      ? mcpFailure(MCP_ERROR_CODES.timeout, "request timed out while answering the server's input requests")
      : mcpFailure(MCP_ERROR_CODES.cancelled, "cancelled while answering the server's input requests");
  } finally {
    clearTimeout(timer);
    caller.signal.removeEventListener("abort", abort);
    controller.abort();
  }
}
