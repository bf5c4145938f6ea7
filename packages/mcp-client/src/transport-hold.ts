import type { McpTransport } from "@agent/mcp-transport";
import type { EventSink } from "@agent/tools";
import { closeTransportWithin } from "./close-transport.js";

/** What a {@link TransportHold} closes with: the connection's server, audit trail and close bound. */
export interface TransportHoldParts {
  server: string;
  events: EventSink;
  /** The connection's close bound, if it set one (else each transport's own, see `closeDeadlineMs`). */
  closeMs: number | undefined;
}

/**
 * The transport a connection opened last, held from before its handshake until the connection lets
 * it go, and the closes of every transport it let go, which the connection's close() waits for (an
 * exiting process must leave no server behind). Letting go unsubscribes the connection's listeners
 * before the close starts, so a close asked for here is never heard as the server going away.
 */
export class TransportHold {
  readonly #parts: TransportHoldParts;
  #transport: McpTransport | undefined;
  #unsubscribe: (() => void)[] = [];
  readonly #closes = new Set<Promise<void>>();

  constructor(parts: TransportHoldParts) {
    this.#parts = parts;
  }

  /** The transport held now, if any. */
  get current(): McpTransport | undefined {
    return this.#transport;
  }

  /** Holds a transport just opened, with the subscriptions to undo when it is let go. */
  hold(transport: McpTransport, unsubscribe: (() => void)[]): void {
    this.#transport = transport;
    this.#unsubscribe = unsubscribe;
  }

  /** Lets go of the transport held, if any, and closes it within the bound (never throws). */
  async release(): Promise<void> {
    const transport = this.#transport;
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    this.#transport = undefined;
    if (transport) await this.close(transport);
  }

  /** Closes a transport within the bound, as one of the closes {@link settled} waits for (never throws). */
  async close(transport: McpTransport): Promise<void> {
    const { server, events, closeMs } = this.#parts;
    const closing = closeTransportWithin(transport, closeMs, events, server);
    this.#closes.add(closing);
    try {
      await closing;
    } finally {
      this.#closes.delete(closing);
    }
  }

  /** Resolves once every close started so far has finished (each within its bound). */
  async settled(): Promise<void> {
    await Promise.all([...this.#closes]);
  }
}
