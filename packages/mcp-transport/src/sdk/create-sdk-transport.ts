import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type Progress,
  type Request,
  type Result,
  McpError as SdkMcpError,
} from "@modelcontextprotocol/sdk/types.js";
import { assertContext, assertMethod, assertNonNegative, assertParams } from "../assert-argument.js";
import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "../errors.js";
import {
  MCP_ERROR_CODES,
  type McpCloseReason,
  type McpError,
  type McpNotification,
  type McpProgress,
  type McpRequestContext,
  type McpRequestHandler,
  type McpResponse,
  type McpSendResult,
  type McpTransport,
  mcpFailure,
  toRequestContext,
} from "../transport.js";
import { withinTime } from "../within-time.js";
import { describeError, foldRequestError } from "./fold-error.js";
import { callSafely, ListenerSet } from "./listener-set.js";
import { type PendingRequest, PendingRequests } from "./pending-requests.js";
import { RawProtocol } from "./raw-protocol.js";
import { ANY_RESULT_SCHEMA } from "./result-schema.js";

/** Options of {@link createSdkTransport}. */
export interface SdkTransportOptions {
  /** Explains an end of connection: the SDK's `onclose()` carries no reason. Unset or undefined means `lost`. */
  describeClose?: () => McpCloseReason | undefined;
  /** Closes the SDK transport on `close()`; defaults to its own `close()`. */
  closeTransport?: () => Promise<void>;
  /** Upper bound for `close()`, in milliseconds (default 5000). */
  closeTimeoutMs?: number;
  /** Removes credentials from every message before it leaves the adapter. */
  redact?: (text: string) => string;
  /**
   * Asked once per request when the SDK rejected it: `{ retry: true }` sends it again (e.g. after an
   * OAuth authorization completed), and the second outcome is final; `{ retry: false, error }` fails
   * it with `error` instead of the SDK's (e.g. why the authorization failed).
   */
  retryAfter?: (error: unknown) => Promise<RetryDecision>;
}

/** What {@link SdkTransportOptions.retryAfter} decided about a rejected request. */
export type RetryDecision = { retry: true } | { retry: false; error?: unknown };

/** An {@link McpTransport} over an SDK transport, with its close reason and out-of-band problems observable. */
export interface SdkMcpTransport extends McpTransport {
  /** Why the connection ended; undefined while it is open. */
  closeReason(): McpCloseReason | undefined;
  /** Subscribes to out-of-band problems (`close_failed`, `protocol_noise`); returns the unsubscribe function. */
  onError(listener: (error: McpTransportError) => void): () => void;
  /** Answers the server's requests of `method`; see {@link McpTransport.onRequest}. */
  onRequest(method: string, handler: McpRequestHandler): () => void;
}

const DEFAULT_CLOSE_TIMEOUT_MS = 5000;
// setTimeout fires at once for larger delays, so "no timeout" is the largest delay it accepts.
const MAX_TIMER_MS = 2_147_483_647;

/** Wraps any SDK client `Transport` (stdio, Streamable HTTP, in-memory, ...) as an {@link McpTransport}. */
export function createSdkTransport(
  sdkTransport: Transport,
  options: SdkTransportOptions = {},
): SdkMcpTransport {
  const redact = options.redact ?? ((text: string) => text);
  const closeTimeoutMs = options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  assertNonNegative("closeTimeoutMs", closeTimeoutMs, "milliseconds");
  const protocol = new RawProtocol();
  const pending = new PendingRequests();
  const notificationListeners = new ListenerSet<McpNotification>();
  const closeListeners = new ListenerSet<McpCloseReason>();
  const errorListeners = new ListenerSet<McpTransportError>();
  const requestHandlers = new Map<string, McpRequestHandler>();
  let reason: McpCloseReason | undefined;
  let closing: Promise<void> | undefined;

  const report = (error: McpTransportError): void => errorListeners.emit(error);

  const end = (why: McpCloseReason): void => {
    if (reason) return;
    reason = { kind: why.kind, message: redact(why.message) };
    pending.settleAll(closedFailure(reason));
    closeListeners.emitOnce(reason);
  };

  // Progress and cancellation have their own handlers in Protocol; everything else is the caller's.
  protocol.fallbackNotificationHandler = async (notification) => {
    const event: McpNotification =
      notification.params === undefined
        ? { method: notification.method }
        : { method: notification.method, params: notification.params };
    notificationListeners.emit(event);
  };
  // `ping` keeps Protocol's own handler; a method nobody registered is "method not found", as before.
  protocol.fallbackRequestHandler = async (request, extra) => {
    const handler = requestHandlers.get(request.method);
    if (!handler) throw new SdkMcpError(MCP_ERROR_CODES.methodNotFound, "Method not found");
    const answer = await handler(request.params, { signal: extra.signal });
    if (answer.ok) return answer.result as Result;
    throw new SdkMcpError(answer.error.code, answer.error.message, answer.error.data);
  };
  protocol.onerror = (error) => {
    if (error instanceof McpTransportError) return report(error);
    // Once closed, errors are side effects of the shutdown (aborted streams), not news.
    if (reason) return;
    report(new McpTransportError(MCP_TRANSPORT_ERROR_CODES.protocolNoise, redact(describeError(error))));
  };
  protocol.onclose = () =>
    end(options.describeClose?.() ?? { kind: "lost", message: "the transport closed" });

  // Set once the SDK transport is up, so that a request then goes out at once, not a microtask later.
  let connected = false;
  const ready: Promise<boolean> = protocol.connect(sdkTransport).then(
    () => {
      connected = true;
      return true;
    },
    (error: unknown) => {
      end(
        options.describeClose?.() ?? {
          kind: "lost",
          message: `could not start the transport: ${describeError(error)}`,
        },
      );
      return false;
    },
  );

  /** Puts a pending request on the wire once the transport is up, and settles it with the answer. */
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
          const { retryAfter } = options;
          const decision = !retried && retryAfter && request.pending ? await retryAfter(error) : undefined;
          if (decision?.retry && request.pending && !reason) return attempt(true);
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
      if (reason) return Promise.resolve(closedFailure(reason));
      return new Promise((resolve) => {
        const request = pending.start(method, context, resolve);
        if (connected) return send(request, method, params, context);
        void ready.then((up) => {
          if (!request.pending) return;
          if (!up || reason) return request.settle(closedFailure(reason));
          send(request, method, params, context);
        });
      });
    },

    async notify(method, params): Promise<McpSendResult> {
      assertMethod(method);
      assertParams(params);
      if (reason) return closedFailure(reason);
      // Once connected it goes out at once, as a request does, so the wire keeps the order of calls.
      if (!connected && (!(await ready) || reason)) return closedFailure(reason);
      try {
        await protocol.notification(params === undefined ? { method } : { method, params: params as never });
        return { ok: true };
      } catch (error) {
        return foldRequestError(error, redact);
      }
    },

    onNotification: (listener) => notificationListeners.add(listener),

    onRequest(method, handler) {
      assertMethod(method);
      requestHandlers.set(method, handler);
      return () => {
        if (requestHandlers.get(method) === handler) requestHandlers.delete(method);
      };
    },

    onClose(listener) {
      if (reason) {
        // A late subscriber still learns how the connection ended, once.
        const current = reason;
        queueMicrotask(() => callSafely(listener, current));
        return () => {};
      }
      return closeListeners.add(listener);
    },

    onError: (listener) => errorListeners.add(listener),

    closeReason: () => reason,

    close(): Promise<void> {
      closing ??= (async () => {
        end({ kind: "client", message: "closed by the client" });
        // The SDK transport itself, not protocol.close(): after the peer went away the protocol has
        // already let go of it, but it may still hold a process that is being torn down.
        const work = ready.then(() =>
          options.closeTransport ? options.closeTransport() : sdkTransport.close(),
        );
        const outcome = await withinTime(work, closeTimeoutMs);
        if (outcome.kind === "timeout") {
          report(
            new McpTransportError(
              MCP_TRANSPORT_ERROR_CODES.closeFailed,
              `the transport did not close within ${closeTimeoutMs} ms`,
            ),
          );
        } else if (outcome.kind === "error") {
          report(
            new McpTransportError(
              MCP_TRANSPORT_ERROR_CODES.closeFailed,
              redact(`closing the transport failed: ${describeError(outcome.error)}`),
            ),
          );
        }
      })();
      return closing;
    },
  };
}

function closedFailure(reason: McpCloseReason | undefined): { ok: false; error: McpError } {
  return mcpFailure(
    MCP_ERROR_CODES.connectionClosed,
    reason ? `connection closed (${reason.kind}): ${reason.message}` : "connection closed",
  );
}

function toMcpProgress(progress: Progress): McpProgress {
  const result: McpProgress = { progress: progress.progress };
  if (typeof progress.total === "number") result.total = progress.total;
  if (typeof progress.message === "string") result.message = progress.message;
  return result;
}
