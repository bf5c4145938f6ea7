import { MCP_ERROR_CODES, type McpCloseReason, type McpError, mcpFailure } from "../transport.js";
import { callSafely, ListenerSet } from "./listener-set.js";
import type { PendingRequests } from "./pending-requests.js";

/**
 * How one connection ends, and who hears of it. It ends once, for the first reason given (the peer
 * went away, the transport failed to start, the client closed): every pending request then fails
 * with the connection-closed code, and every close listener is told once, a late one included.
 */
export class ConnectionLifetime {
  readonly #pending: PendingRequests;
  readonly #redact: (text: string) => string;
  readonly #listeners = new ListenerSet<McpCloseReason>();
  #reason: McpCloseReason | undefined;

  constructor(pending: PendingRequests, redact: (text: string) => string) {
    this.#pending = pending;
    this.#redact = redact;
  }

  /** Why the connection ended (its message redacted); undefined while it is open. */
  get reason(): McpCloseReason | undefined {
    return this.#reason;
  }

  /** Ends the connection for `why`, unless it already ended. */
  end(why: McpCloseReason): void {
    if (this.#reason) return;
    const reason: McpCloseReason = { kind: why.kind, message: this.#redact(why.message) };
    this.#reason = reason;
    this.#pending.settleAll(closedFailure(reason));
    this.#listeners.emitOnce(reason);
  }

  /** Subscribes to the end of the connection; returns the unsubscribe function. */
  onClose(listener: (reason: McpCloseReason) => void): () => void {
    const current = this.#reason;
    if (!current) return this.#listeners.add(listener);
    // A late subscriber still learns how the connection ended, once.
    queueMicrotask(() => callSafely(listener, current));
    return () => {};
  }
}

/** The failed response of a request that met a closed connection. */
export function closedFailure(reason: McpCloseReason | undefined): { ok: false; error: McpError } {
  return mcpFailure(
    MCP_ERROR_CODES.connectionClosed,
    reason ? `connection closed (${reason.kind}): ${reason.message}` : "connection closed",
  );
}
