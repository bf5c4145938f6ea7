import { messageOf } from "@agent/base";
import {
  MCP_ERROR_CODES,
  type McpAbortSignal,
  type McpCloseReason,
  type McpNotification,
  type McpRequestAnswer,
  type McpRequestContext,
  type McpRequestHandler,
  type McpResponse,
  type McpSendResult,
  type McpTransport,
  type McpTransportError,
  mcpFailure,
  toRequestContext,
} from "@agent/mcp-transport";

/** What a handler learns about the request it answers. */
export interface FakeRequestInfo {
  method: string;
  id: number;
  /** The request's cancellation as the caller passed it (an AbortSignal or any {@link McpAbortSignal}). */
  signal: McpAbortSignal;
  /** Reports progress to the caller, as a server's progress notifications would. */
  reportProgress(progress: number, total?: number, message?: string): void;
}

/** Answers one method; may be async, slow, or never settle (to simulate a hang). */
export type FakeHandler = (params: unknown, request: FakeRequestInfo) => McpResponse | Promise<McpResponse>;

/** A request the fake received, with the signal it was given. */
export interface FakeRequestRecord {
  kind: "request";
  id: number;
  method: string;
  params: unknown;
  /** The exact signal the caller passed: tests assert `signal.aborted` at the boundary. */
  signal: McpAbortSignal;
  timeoutMs?: number;
  /** How the request ended at the transport, once it has. */
  outcome?: "answered" | "cancelled" | "timeout" | "connection_closed";
}

/** A notification the client sent. */
export interface FakeNotificationRecord {
  kind: "notification";
  method: string;
  params: unknown;
}

/** Everything that reached the fake, in order. */
export type FakeCall = FakeRequestRecord | FakeNotificationRecord;

/** Options of {@link FakeTransport}. */
export interface FakeTransportOptions {
  /** `close()` takes this long (or never finishes, with `"never"`). */
  closeDelayMs?: number | "never";
  /** `close()` rejects with this error, to simulate a failed close. */
  closeError?: Error;
  /**
   * `false` keeps no log of what arrived (`calls`, `requests`, ... stay empty), so that a long
   * benchmark does not measure a growing heap; defaults to `true`.
   */
  record?: boolean;
}

/**
 * An in-memory {@link McpTransport} for offline tests: scripted handlers per method, a log of every
 * request and notification in order, the signal of each request, close bookkeeping, server
 * notifications on demand, and crashes.
 */
export class FakeTransport implements McpTransport {
  /** Every request and notification, in the order they arrived. */
  readonly calls: FakeCall[] = [];
  /** Ids of requests the client cancelled or timed out (a real transport sends `notifications/cancelled`). */
  readonly cancelledRequestIds: number[] = [];
  closed = false;
  closeCount = 0;
  readonly #handlers: Record<string, FakeHandler>;
  readonly #options: FakeTransportOptions;
  readonly #notificationListeners = new Set<(notification: McpNotification) => void>();
  readonly #closeListeners = new Set<(reason: McpCloseReason) => void>();
  readonly #errorListeners = new Set<(error: McpTransportError) => void>();
  readonly #pending = new Set<(response: McpResponse) => void>();
  readonly #requestHandlers = new Map<string, McpRequestHandler>();
  #closeReason: McpCloseReason | undefined;
  #nextId = 1;

  constructor(handlers: Record<string, FakeHandler> = {}, options: FakeTransportOptions = {}) {
    this.#handlers = handlers;
    this.#options = options;
  }

  /** The requests only, in order. */
  get requests(): FakeRequestRecord[] {
    return this.calls.filter((call): call is FakeRequestRecord => call.kind === "request");
  }

  /** The notifications only, in order. */
  get notifications(): FakeNotificationRecord[] {
    return this.calls.filter((call): call is FakeNotificationRecord => call.kind === "notification");
  }

  /** Methods of every request and notification, in order. */
  get methods(): string[] {
    return this.calls.map((call) => call.method);
  }

  /** Requests for one method. */
  requestsFor(method: string): FakeRequestRecord[] {
    return this.requests.filter((request) => request.method === method);
  }

  /** Replaces or adds a handler, e.g. to change the tool list before a `list_changed`. */
  setHandler(method: string, handler: FakeHandler): void {
    this.#handlers[method] = handler;
  }

  async request(
    method: string,
    params: unknown,
    context: McpRequestContext | AbortSignal,
  ): Promise<McpResponse> {
    const { signal, timeoutMs, onProgress } = toRequestContext(context);
    const record: FakeRequestRecord = { kind: "request", id: this.#nextId++, method, params, signal };
    if (timeoutMs !== undefined) record.timeoutMs = timeoutMs;
    if (this.#options.record !== false) this.calls.push(record);
    if (this.#closeReason) return this.#end(record, "connection_closed", closedFailure(this.#closeReason));
    if (signal.aborted)
      return this.#end(record, "cancelled", mcpFailure(MCP_ERROR_CODES.cancelled, "cancelled"));
    const handler = this.#handlers[method];
    if (!handler)
      return this.#end(record, "answered", mcpFailure(MCP_ERROR_CODES.methodNotFound, "method_not_found"));

    return new Promise<McpResponse>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (outcome: NonNullable<FakeRequestRecord["outcome"]>, response: McpResponse) => {
        if (record.outcome) return;
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(onCrash);
        if (outcome === "cancelled" || outcome === "timeout") this.cancelledRequestIds.push(record.id);
        resolve(this.#end(record, outcome, response));
      };
      const onAbort = () => settle("cancelled", mcpFailure(MCP_ERROR_CODES.cancelled, "cancelled"));
      const onCrash = (response: McpResponse) => settle("connection_closed", response);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.add(onCrash);
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () => settle("timeout", mcpFailure(MCP_ERROR_CODES.timeout, "request timed out")),
          timeoutMs,
        );
      }
      const info: FakeRequestInfo = {
        method,
        id: record.id,
        signal,
        reportProgress: (progress, total, message) => {
          if (!record.outcome)
            onProgress?.({
              progress,
              ...(total === undefined ? {} : { total }),
              ...(message ? { message } : {}),
            });
        },
      };
      Promise.resolve()
        .then(() => handler(params, info))
        .then(
          (response) => settle("answered", response),
          (error: unknown) => settle("answered", mcpFailure(MCP_ERROR_CODES.internalError, messageOf(error))),
        );
    });
  }

  async notify(method: string, params?: unknown): Promise<McpSendResult> {
    if (this.#options.record !== false) this.calls.push({ kind: "notification", method, params });
    if (this.#closeReason) return closedFailure(this.#closeReason);
    return { ok: true };
  }

  onNotification(listener: (notification: McpNotification) => void): () => void {
    this.#notificationListeners.add(listener);
    return () => this.#notificationListeners.delete(listener);
  }

  onRequest(method: string, handler: McpRequestHandler): () => void {
    this.#requestHandlers.set(method, handler);
    return () => {
      if (this.#requestHandlers.get(method) === handler) this.#requestHandlers.delete(method);
    };
  }

  /**
   * Sends a request from the "server" to the client and resolves with the client's answer: `-32601`
   * when the client registered no handler for `method`, as a real transport answers.
   */
  async serverRequest(
    method: string,
    params?: unknown,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<McpRequestAnswer> {
    const handler = this.#requestHandlers.get(method);
    // As the transport contract says: `ping` is the transport's own, answered with `{}`.
    if (!handler && method === "ping") return { ok: true, result: {} };
    if (!handler) return mcpFailure(MCP_ERROR_CODES.methodNotFound, "Method not found");
    return handler(params, { signal });
  }

  onClose(listener: (reason: McpCloseReason) => void): () => void {
    this.#closeListeners.add(listener);
    return () => this.#closeListeners.delete(listener);
  }

  onError(listener: (error: McpTransportError) => void): () => void {
    this.#errorListeners.add(listener);
    return () => this.#errorListeners.delete(listener);
  }

  /** Reports an out-of-band problem (e.g. `close_failed`) to every `onError` listener. */
  reportError(error: McpTransportError): void {
    for (const listener of [...this.#errorListeners]) listener(error);
  }

  /** Delivers a notification from the "server" to every listener. */
  pushNotification(method: string, params?: unknown): void {
    for (const listener of [...this.#notificationListeners])
      listener(params === undefined ? { method } : { method, params });
  }

  /** Simulates the server dying: pending requests fail with connection closed, later ones fail fast. */
  crash(message = "the server exited unexpectedly"): void {
    this.#shutdown({ kind: "exited", message });
  }

  async close(): Promise<void> {
    this.closeCount += 1;
    this.closed = true;
    this.#shutdown({ kind: "client", message: "closed by the client" });
    const { closeDelayMs, closeError } = this.#options;
    if (closeDelayMs === "never") await new Promise<never>(() => {});
    if (typeof closeDelayMs === "number") await new Promise((resolve) => setTimeout(resolve, closeDelayMs));
    if (closeError) throw closeError;
  }

  #shutdown(reason: McpCloseReason): void {
    if (this.#closeReason) return;
    this.#closeReason = reason;
    for (const fail of [...this.#pending]) fail(closedFailure(reason));
    for (const listener of [...this.#closeListeners]) listener(reason);
  }

  #end(
    record: FakeRequestRecord,
    outcome: NonNullable<FakeRequestRecord["outcome"]>,
    response: McpResponse,
  ): McpResponse {
    record.outcome = outcome;
    return response;
  }
}

function closedFailure(reason: McpCloseReason): { ok: false; error: { code: number; message: string } } {
  return mcpFailure(MCP_ERROR_CODES.connectionClosed, `connection closed: ${reason.message}`);
}
