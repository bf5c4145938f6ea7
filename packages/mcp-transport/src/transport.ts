import type { McpTaskStatus } from "./era/task-result.js";
import type { McpTransportError } from "./errors.js";

/** Transport-level JSON-RPC error codes; servers may send any other code too. */
export const MCP_ERROR_CODES = {
  /** The request's signal was aborted (the server was sent `notifications/cancelled`). */
  cancelled: -32800,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** No answer within the request's `timeoutMs` (the server was sent `notifications/cancelled`). */
  timeout: -32001,
  /** The connection is closed, or closed while the request was pending. */
  connectionClosed: -32000,
} as const;

/** A JSON-RPC or transport error, folded into a value. */
export interface McpError {
  code: number;
  message: string;
  data?: unknown;
}

/** Every outcome of a request: a result to validate where it is used, or an error. Never a rejection. */
export type McpResponse = { ok: true; result: unknown } | { ok: false; error: McpError };

/** The outcome of sending a notification (nothing is awaited from the server). */
export type McpSendResult = { ok: true } | { ok: false; error: McpError };

/** Progress the server reports for a request. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * What a request reads of its cancellation. An `AbortSignal` is one; so is any object with these
 * members, e.g. `@agent/tools`' `context.cancellation`, which spares a remote call the cost of
 * creating an AbortSignal (several microseconds on Node 20).
 */
export interface McpAbortSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** Cancellation and time limits of one request, set by the caller (never by the server). */
export interface McpRequestContext {
  /** Aborting it cancels the request: it resolves with the cancelled code and the server is told. */
  signal: McpAbortSignal;
  /** Resolve with the timeout code after this long; unset means no timeout of the transport's own. */
  timeoutMs?: number;
  /** Receives the server's progress notifications for this request. */
  onProgress?: (progress: McpProgress) => void;
  /**
   * Receives each step of the task a `tools/call` became (tasks extension, 2026-07-28): its
   * creation, each change of its status, a cancellation sent. The call waits for a returned promise
   * before it polls on, so a caller that saves the task (to resume it later) has saved it first.
   */
  onTask?: (event: McpTaskEvent) => void | Promise<void>;
  /**
   * For `tools/call`: send nothing new, follow the task this same call created before (a call
   * resumed after its process stopped). A transport that cannot follow tasks fails the request.
   */
  resumeTaskId?: string;
}

/** One step of a call's task, as {@link McpRequestContext.onTask} receives it. */
export type McpTaskEvent =
  | { kind: "created"; taskId: string; status: McpTaskStatus; pollIntervalMs: number }
  | { kind: "status"; taskId: string; status: McpTaskStatus }
  | { kind: "cancel_sent"; taskId: string; ok: boolean };

/** A message from the server that expects no answer, e.g. `notifications/tools/list_changed`. */
export interface McpNotification {
  method: string;
  params?: unknown;
}

/** The client's answer to one request from the server: a result, or a JSON-RPC error. */
export type McpRequestAnswer = { ok: true; result: Record<string, unknown> } | { ok: false; error: McpError };

/**
 * Answers the server's requests of one method (`roots/list`, `elicitation/create`, ...). The signal
 * aborts when the server cancels the request or the connection ends.
 */
export type McpRequestHandler = (
  params: unknown,
  context: { signal: AbortSignal },
) => Promise<McpRequestAnswer>;

/** Why a connection ended. */
export interface McpCloseReason {
  /** `client`: we closed it. `exited`: the server process ended. `lost`: the connection dropped. `protocol`: the server broke the protocol (e.g. a message over the size cap). */
  kind: "client" | "exited" | "lost" | "protocol";
  message: string;
}

/**
 * Which protocol a connection speaks on the wire, once it is negotiated: the `initialize` handshake
 * (2025-11-25 and older, the version is the handshake's) or the stateless 2026-07-28 protocol.
 * Informational, for listings: nothing above the transport behaves differently by it.
 */
export type McpWireProtocol = { era: "handshake" } | { era: "stateless"; protocolVersion: string };

/**
 * The only thing above the transport that knows about the wire. Requests resolve, never reject,
 * for protocol, timeout, cancellation and disconnect outcomes; only misuse throws.
 */
export interface McpTransport {
  /** Sends a request and resolves with its outcome. A bare signal is shorthand for `{ signal }`. */
  request(method: string, params: unknown, context: McpRequestContext | AbortSignal): Promise<McpResponse>;
  /** Sends a notification: no id, no answer awaited. */
  notify(method: string, params?: unknown): Promise<McpSendResult>;
  /** Subscribes to server notifications; returns the unsubscribe function. */
  onNotification(listener: (notification: McpNotification) => void): () => void;
  /**
   * Answers the server's requests of `method` with `handler` (one handler per method; a later one
   * replaces it); returns the function that removes it. A method without a handler is answered with
   * `-32601` (method not found), `ping` with `{}`. Optional: a transport without it answers every
   * server request but `ping` with `-32601`.
   */
  onRequest?(method: string, handler: McpRequestHandler): () => void;
  /** Subscribes to the end of the connection (called at most once); returns the unsubscribe function. */
  onClose(listener: (reason: McpCloseReason) => void): () => void;
  /** Closes the connection and releases everything it holds. Idempotent; never rejects. */
  close(): Promise<void>;
  /**
   * The longest `close()` takes, in milliseconds, when the transport knows it (ours do): a caller
   * derives its own close deadline from it (`closeBoundAround`) rather than guessing one.
   */
  readonly closeTimeoutMs?: number;
  /** Which protocol the connection negotiated (see {@link McpWireProtocol}); optional, unset before `initialize`. */
  wireProtocol?(): McpWireProtocol | undefined;
  /**
   * Subscribes to problems that are no request's outcome, e.g. `close_failed` (the server could not
   * be stopped in time) or `protocol_noise`; returns the unsubscribe function. Optional.
   */
  onError?(listener: (error: McpTransportError) => void): () => void;
}

/** Normalizes the `context` argument of {@link McpTransport.request}. */
export function toRequestContext(context: McpRequestContext | AbortSignal): McpRequestContext {
  // A context has a `signal`; a bare AbortSignal has none.
  return typeof context === "object" && context !== null && "signal" in context
    ? context
    : { signal: context };
}

/** Whether `value` has what a request reads of its cancellation ({@link McpAbortSignal}). */
export function isAbortSignalLike(value: unknown): value is McpAbortSignal {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.aborted === "boolean" &&
    typeof candidate.addEventListener === "function" &&
    typeof candidate.removeEventListener === "function"
  );
}

/** Builds a failed {@link McpResponse}. */
export function mcpFailure(code: number, message: string, data?: unknown): { ok: false; error: McpError } {
  return { ok: false, error: data === undefined ? { code, message } : { code, message, data } };
}
