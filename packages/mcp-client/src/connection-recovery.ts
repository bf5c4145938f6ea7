import type { McpCloseReason, McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent } from "@agent/tools";
import {
  type McpServerConnectionOptions,
  type McpServerState,
  resolveIdleTimeout,
  resolveReconnectPolicy,
} from "./connection-options.js";
import { Reconnector } from "./connection-reconnect.js";
import { Dormancy } from "./dormancy.js";
import { MCP_CLIENT_ERROR_CODES, McpClientError, toMcpClientError } from "./errors.js";

/** What a connection lets its {@link ConnectionRecovery} read and do. */
export interface RecoveryPort {
  server: string;
  events: EventSink;
  /** The connection's lifetime: aborted by close(), which ends the reconnector's attempts. */
  lifetime: AbortSignal;
  state(): McpServerState;
  /** Puts the connection to sleep, or records it disconnected and why. */
  enter(state: "dormant" | "disconnected", error?: { code: string; message: string }): void;
  /** Whether close() ran or an explicit reconnect() is under way: either takes over from a failed wake. */
  takenOver(): boolean;
  /** Whether `transport` is the one the connection holds now. */
  holds(transport: McpTransport): boolean;
  /** A new transport, handshake and discovery (joining one under way). */
  establish(): Promise<void>;
  /** Fails the connection for good. */
  fail(error: unknown): Promise<void>;
  /** Lets go of the transport held and closes it. */
  release(): Promise<void>;
}

/**
 * How a connection gets its server back without being asked: the idle close and the wake from it
 * ({@link Dormancy}), and, with a reconnect policy, the {@link Reconnector} that runs after a crash
 * or a failed wake. An explicit reconnect() and close() stay the connection's own.
 */
export class ConnectionRecovery {
  /** The idle close, when `idleTimeoutMs` is set. */
  readonly dormancy: Dormancy | undefined;
  /** The reconnect attempts after a drop, when a reconnect policy is set. */
  readonly reconnector: Reconnector | undefined;
  readonly #port: RecoveryPort;

  constructor(options: McpServerConnectionOptions, port: RecoveryPort) {
    this.#port = port;
    const idleTimeoutMs = resolveIdleTimeout(options);
    if (idleTimeoutMs !== undefined) {
      this.dormancy = new Dormancy(idleTimeoutMs, {
        sleep: () => void this.#goDormant(idleTimeoutMs),
        reopen: () => port.establish(),
        reopenFailed: (error) => this.#wakeFailed(error),
      });
    }
    const policy = resolveReconnectPolicy(options.reconnect);
    this.reconnector =
      policy &&
      new Reconnector(policy, {
        server: port.server,
        events: port.events,
        signal: port.lifetime,
        // Already back (reconnect() won the race): nothing to open over it.
        establish: () => (port.state() === "ready" ? Promise.resolve() : port.establish()),
        attemptFailed: (error) => this.#disconnect(error),
        gaveUp: (message) =>
          port.fail(
            new McpClientError(MCP_CLIENT_ERROR_CODES.connectionClosed, message, { server: port.server }),
          ),
      });
  }

  /**
   * A transport ended by itself. A close the connection asked for never lands here: it lets go of
   * the transport (and this listener) before closing it, whatever kind the transport then reports.
   * While connecting, the pending handshake or listing fails by itself and reports why.
   */
  transportClosed(transport: McpTransport, reason: McpCloseReason): void {
    const port = this.#port;
    if (!port.holds(transport) || port.state() !== "ready") return;
    port.enter("disconnected", { code: "mcp_connection_closed", message: reason.message });
    emitEvent(port.events, {
      type: "mcp_server_exited",
      server: port.server,
      reason: reason.kind,
      message: reason.message,
    });
    this.reconnector?.start();
  }

  /** Closes an idle connection; its tools stay registered and the next use reopens it. */
  async #goDormant(idleMs: number): Promise<void> {
    if (this.#port.state() !== "ready") return;
    this.#port.enter("dormant");
    emitEvent(this.#port.events, { type: "mcp_idle_closed", server: this.#port.server, idleMs });
    await this.#port.release();
  }

  /**
   * A wake from dormancy failed. With a reconnect policy the reconnector takes over, as after a
   * crash (the wake's callers are already told the server is not back); without one the connection
   * fails. A reconnect() waiting on it, or one (or a close()) begun meanwhile, takes over instead.
   */
  async #wakeFailed(error: unknown): Promise<void> {
    if (this.#port.takenOver()) return;
    if (!this.reconnector) return this.#port.fail(error);
    await this.#disconnect(error);
    if (!this.#port.takenOver()) this.reconnector.start();
  }

  /** Records why the server is not back and lets go of its transport; a reconnect may follow. */
  async #disconnect(error: unknown): Promise<void> {
    const { code, message } = toMcpClientError(error, this.#port.server);
    this.#port.enter("disconnected", { code, message });
    await this.#port.release();
  }
}
