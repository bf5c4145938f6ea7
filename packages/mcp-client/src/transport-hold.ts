import type { McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent } from "@agent/tools";
import { closeDeadlineMs, closeTransportWithin } from "./close-transport.js";
import { delay } from "./phase.js";
import { since } from "./time.js";

/** What a {@link TransportHold} closes with: the connection's server, audit trail and close bound. */
export interface TransportHoldParts {
  server: string;
  events: EventSink;
  /** The connection's close bound, if it set one (else each transport's own, see `closeDeadlineMs`). */
  closeMs: number | undefined;
}

/**
 * The transport a connection opened last, held from before its handshake until the connection lets
 * it go, and the closes of every transport it let go and the opens still under way, which the
 * connection's close() waits for (an exiting process must leave no server behind). Letting go unsubscribes the connection's listeners
 * before the close starts, so a close asked for here is never heard as the server going away.
 */
export class TransportHold {
  readonly #parts: TransportHoldParts;
  #transport: McpTransport | undefined;
  #unsubscribe: (() => void)[] = [];
  readonly #closes = new Set<Promise<void>>();
  /** Opens under way (a `connect` has no bound of its own), each until it is held or closed. */
  readonly #opens = new Set<Promise<void>>();

  constructor(parts: TransportHoldParts) {
    this.#parts = parts;
  }

  /** The transport held now, if any. */
  get current(): McpTransport | undefined {
    return this.#transport;
  }

  /**
   * Opens a transport through `connect`. One that finishes opening when `unwanted()` says so (the
   * connection was closed meanwhile) is closed here, as one of the closes {@link settled} waits
   * for, and `undefined` returned: nobody else would close it.
   */
  async open(
    connect: () => Promise<McpTransport>,
    unwanted: () => boolean,
  ): Promise<McpTransport | undefined> {
    const opening = connect().then(async (transport) => {
      if (!unwanted()) return transport;
      await this.close(transport);
      return undefined;
    });
    const settling = opening.then(
      () => {},
      () => {},
    );
    this.#opens.add(settling);
    try {
      return await opening;
    } finally {
      this.#opens.delete(settling);
    }
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

  /**
   * Resolves once every close started so far has finished (each within its bound), and every open
   * under way has finished and been closed, within the close bound (`closeMs`, unset: the bound of
   * a transport that states none): past it, an open still pending is an `mcp_close_failed`.
   */
  async settled(): Promise<void> {
    await Promise.all([...this.#closes, this.#opensWithin()]);
  }

  async #opensWithin(): Promise<void> {
    if (this.#opens.size === 0) return;
    const { server, events, closeMs } = this.#parts;
    const limitMs = closeDeadlineMs(closeMs);
    const started = performance.now();
    const stopWaiting = new AbortController();
    const opened = Promise.all([...this.#opens]).then(() => true);
    const waited = delay(limitMs, stopWaiting.signal).then(() => false);
    const inTime = await Promise.race([opened, waited]);
    stopWaiting.abort();
    if (inTime) return;
    emitEvent(events, {
      type: "mcp_close_failed",
      server,
      message: `the transport was still opening after ${limitMs} ms; it is closed once it opens`,
      durationMs: since(started),
    });
  }
}
