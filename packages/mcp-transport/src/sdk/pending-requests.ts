import {
  MCP_ERROR_CODES,
  type McpAbortSignal,
  type McpRequestContext,
  type McpResponse,
  mcpFailure,
} from "../transport.js";
import { RequestCanceller } from "./request-canceller.js";

// setTimeout fires at once for larger delays, so "no timeout" is the largest delay it accepts.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The requests of one transport that have no outcome yet. Each ends exactly once: by its answer, its
 * caller's abort, its own `timeoutMs`, or the end of the connection ({@link settleAll}). As in the
 * SDK's Protocol, which keeps response handlers and timeouts apart, this holds only that
 * bookkeeping; sending and answering stay with the transport.
 */
export class PendingRequests {
  readonly #requests = new Set<PendingRequest>();

  /** Registers a request about to be sent; `resolve` receives its one outcome. */
  start(
    method: string,
    context: McpRequestContext,
    resolve: (response: McpResponse) => void,
  ): PendingRequest {
    const request = new PendingRequest(this.#requests, method, context, resolve);
    this.#requests.add(request);
    return request;
  }

  /** Ends every pending request with `response` (the connection closed). */
  settleAll(response: McpResponse): void {
    for (const request of [...this.#requests]) request.settle(response);
  }
}

/** One request in flight; see {@link PendingRequests}. */
export class PendingRequest {
  /**
   * Aborting this makes the SDK send `notifications/cancelled`. It is the request's own, so a
   * caller's signal that aborts after the answer cannot cancel a finished request.
   */
  readonly canceller = new RequestCanceller();
  readonly #requests: Set<PendingRequest>;
  readonly #method: string;
  readonly #signal: McpAbortSignal;
  readonly #resolve: (response: McpResponse) => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sent = false;

  constructor(
    requests: Set<PendingRequest>,
    method: string,
    context: McpRequestContext,
    resolve: (response: McpResponse) => void,
  ) {
    this.#requests = requests;
    this.#method = method;
    this.#signal = context.signal;
    this.#resolve = resolve;
    this.#signal.addEventListener("abort", this.#onAbort, { once: true });
    const { timeoutMs } = context;
    if (timeoutMs !== undefined) {
      this.#timer = setTimeout(
        () =>
          this.#stop(
            mcpFailure(MCP_ERROR_CODES.timeout, `request timed out after ${timeoutMs} ms`),
            "timed out",
          ),
        Math.min(timeoutMs, MAX_TIMER_MS),
      );
    }
  }

  /** Whether the request still waits for its outcome. */
  get pending(): boolean {
    return this.#requests.has(this);
  }

  /** The request went on the wire: from now on, ending it early tells the server. */
  markSent(): void {
    this.#sent = true;
  }

  /** Ends the request with `response`, unless it already ended. */
  settle(response: McpResponse): void {
    if (!this.#requests.delete(this)) return;
    clearTimeout(this.#timer);
    this.#signal.removeEventListener("abort", this.#onAbort);
    this.#resolve(response);
  }

  #stop(response: McpResponse, why: string): void {
    if (!this.pending) return;
    this.settle(response);
    // The MCP spec forbids cancelling `initialize`; the caller is expected to close instead.
    if (this.#sent && this.#method !== "initialize") this.canceller.abort(why);
  }

  // An arrow, so that the same function is removed as was added.
  readonly #onAbort = (): void =>
    this.#stop(mcpFailure(MCP_ERROR_CODES.cancelled, "request cancelled"), "cancelled by the client");
}
