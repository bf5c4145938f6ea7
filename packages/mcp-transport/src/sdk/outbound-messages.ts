import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Progress, Request } from "@modelcontextprotocol/sdk/types.js";
import { assertContext, assertMethod, assertParams } from "../assert-argument.js";
import {
  MCP_ERROR_CODES,
  type McpProgress,
  type McpRequestContext,
  type McpResponse,
  type McpSendResult,
  type McpTransport,
  mcpFailure,
  toRequestContext,
} from "../transport.js";
import { closedFailure } from "./connection-lifetime.js";
import { foldRequestError } from "./fold-error.js";
import { callSafely } from "./listener-set.js";
import type { PendingRequest, PendingRequests } from "./pending-requests.js";
import type { ProtocolConnection } from "./protocol-connection.js";
import { ANY_RESULT_SCHEMA } from "./result-schema.js";
import type { RetryDecision } from "./sdk-transport-options.js";

// setTimeout fires at once for larger delays, so "no timeout" is the largest delay it accepts.
const MAX_TIMER_MS = 2_147_483_647;

/** What {@link createOutbound} sends through and keeps track with. */
export interface OutboundPort {
  /** The protocol to send through, its SDK transport and the connection's lifetime. */
  connection: ProtocolConnection;
  /** Where each request waits for its outcome. */
  pending: PendingRequests;
  redact: (text: string) => string;
  retryAfter: ((error: unknown) => Promise<RetryDecision>) | undefined;
}

/** The client's side of the wire: requests (each settled exactly once) and notifications. */
export type Outbound = Pick<McpTransport, "request" | "notify">;

/**
 * Sends the client's requests and notifications: each waits for the transport to come up (and goes
 * out at once when it is), fails with the connection-closed code once the connection ended, and
 * folds every SDK rejection into a failed response. The per-call path allocates only what one
 * request needs (its pending entry, its SDK options, its answer handlers).
 */
export function createOutbound(port: OutboundPort): Outbound {
  const { connection, pending, redact, retryAfter } = port;
  const { protocol, sdkTransport, lifetime } = connection;

  /** Puts a pending request on the wire, and settles it with the answer. */
  const send = (
    request: PendingRequest,
    method: string,
    params: unknown,
    context: McpRequestContext,
  ): void => {
    request.markSent();
    const requestOptions: RequestOptions = { signal: request.canceller.signal, timeout: MAX_TIMER_MS };
    const { onProgress } = context;
    if (onProgress) {
      requestOptions.onprogress = (progress) => {
        if (request.pending) callSafely(onProgress, toMcpProgress(progress));
      };
    }
    const message = (params === undefined ? { method } : { method, params }) as Request;
    const attempt = (retried: boolean): void => {
      protocol.request(message, ANY_RESULT_SCHEMA, requestOptions).then(
        (result) => {
          // The HTTP transport must echo the negotiated version in a header on every later request.
          if (method === "initialize" && typeof result.protocolVersion === "string") {
            sdkTransport.setProtocolVersion?.(result.protocolVersion);
          }
          request.settle({ ok: true, result });
        },
        async (error: unknown) => {
          const decision =
            !retried && retryAfter && request.pending ? await decideRetry(retryAfter, error) : undefined;
          if (decision?.retry && request.pending && !lifetime.reason) return attempt(true);
          const failure =
            decision && !decision.retry && decision.error !== undefined ? decision.error : error;
          request.settle(foldRequestError(failure, redact));
        },
      );
    };
    attempt(false);
  };

  return {
    // Not async: the answer's own promise, without a second one adopting it (two microtask turns).
    request(method, params, contextOrSignal): Promise<McpResponse> {
      let context: McpRequestContext;
      try {
        assertMethod(method);
        assertParams(params);
        context = toRequestContext(contextOrSignal);
        assertContext(context);
      } catch (error) {
        return Promise.reject(error);
      }
      if (context.signal.aborted)
        return Promise.resolve(mcpFailure(MCP_ERROR_CODES.cancelled, "request cancelled before it was sent"));
      if (lifetime.reason) return Promise.resolve(closedFailure(lifetime.reason));
      return new Promise((resolve) => {
        const request = pending.start(method, context, resolve);
        if (connection.connected) return send(request, method, params, context);
        void connection.ready.then((up) => {
          if (!request.pending) return;
          if (!up || lifetime.reason) return request.settle(closedFailure(lifetime.reason));
          send(request, method, params, context);
        });
      });
    },

    async notify(method, params): Promise<McpSendResult> {
      assertMethod(method);
      assertParams(params);
      if (lifetime.reason) return closedFailure(lifetime.reason);
      // Once connected it goes out at once, as a request does, so the wire keeps the order of calls.
      if (!connection.connected && (!(await connection.ready) || lifetime.reason)) {
        return closedFailure(lifetime.reason);
      }
      try {
        await protocol.notification(params === undefined ? { method } : { method, params: params as never });
        return { ok: true };
      } catch (error) {
        return foldRequestError(error, redact);
      }
    },
  };
}

function toMcpProgress(progress: Progress): McpProgress {
  const result: McpProgress = { progress: progress.progress };
  if (typeof progress.total === "number") result.total = progress.total;
  if (typeof progress.message === "string") result.message = progress.message;
  return result;
}

/** A `retryAfter` that throws or rejects decides "no retry, with its failure": the request still settles. */
async function decideRetry(
  retryAfter: (error: unknown) => Promise<RetryDecision>,
  error: unknown,
): Promise<RetryDecision> {
  try {
    return await retryAfter(error);
  } catch (failure) {
    return { retry: false, error: failure };
  }
}
