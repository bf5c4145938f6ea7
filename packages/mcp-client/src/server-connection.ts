import type { McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent, type GroupChange, NULL_EVENT_SINK } from "@agent/tools";
import type { McpRoot } from "./client-features.js";
import {
  buildSnapshot,
  type McpServerConnectionOptions,
  type McpServerSnapshot,
  type McpServerState,
  type McpServerTimeouts,
  resolveTimeouts,
} from "./connection-options.js";
import { ConnectionRecovery, type RecoveryPort } from "./connection-recovery.js";
import { MCP_CLIENT_ERROR_CODES, McpClientError, toMcpClientError } from "./errors.js";
import {
  closedAfterHandshake,
  closedError,
  createSessionParts,
  McpSession,
  type SessionParts,
} from "./mcp-session.js";
import { assertServerName } from "./names.js";
import { listenTo, startTransport } from "./open-transport.js";
import { LATEST_PROTOCOL_VERSION, type ProtocolFeatures, protocolFeatures } from "./protocol-version.js";
import { type CallConnection, ServerCalls } from "./server-calls.js";
import type { McpPrompt, McpResource, McpResourceTemplate } from "./server-catalog.js";
import { mcpToolGroup } from "./tool-mapping.js";
import { TransportHold } from "./transport-hold.js";

/**
 * One governed connection to an MCP server: handshake, discovery into the registry (as one atomic
 * group), rediscovery on `list_changed`, calls that go through the transport with the caller's
 * signal, reconnects, and a close that never throws. Every phase has a timeout and every step an event.
 * This class is the lifecycle (`idle`, `connecting`, `ready`, `dormant`, `disconnected`, `failed`,
 * `closed`) and its current {@link McpSession}: each handshake makes a new session, which owns the
 * transport, what was negotiated and the listings made on it, and the connection swaps it in. The
 * registry group and the catalog outlive sessions; the tools' calls go through {@link ServerCalls}.
 */
export class McpServerConnection {
  readonly name: string;
  readonly group: string;
  readonly #options: McpServerConnectionOptions;
  readonly #events: EventSink;
  readonly #timeouts: McpServerTimeouts;
  /** The idle close and wake, and the reconnector after a drop. */
  readonly #recovery: ConnectionRecovery;
  readonly #lifetime = new AbortController();
  #state: McpServerState = "idle";
  /** The transport opened last, from before its handshake until it is let go; the opens and closes under way. */
  readonly #transport: TransportHold;
  /** The session of the last successful handshake (kept when it ended: a snapshot still names it). */
  #session: McpSession | undefined;
  readonly #sessionParts: SessionParts;
  #error: { code: string; message: string } | undefined;
  #roots: readonly McpRoot[];
  #closing: Promise<void> | undefined;
  /** The handshake under way: a reconnect, a wake and the reconnector's attempt never run two at once. */
  #establishing: Promise<void> | undefined;
  /** How many explicit reconnect() calls are under way: while any is, it reports what fails, not a wake. */
  #reconnecting = 0;

  constructor(options: McpServerConnectionOptions) {
    assertServerName(options.name);
    this.name = options.name;
    this.group = mcpToolGroup(options.name);
    this.#options = options;
    this.#events = options.events ?? NULL_EVENT_SINK;
    this.#timeouts = resolveTimeouts(options.timeouts);
    this.#transport = new TransportHold({
      server: options.name,
      events: this.#events,
      closeMs: this.#timeouts.closeMs,
    });
    this.#recovery = new ConnectionRecovery(options, this.#recoveryPort());
    const dormancy = this.#recovery.dormancy;
    const calls = new ServerCalls(
      { server: options.name, events: this.#events, callMs: this.#timeouts.callMs, dormancy },
      this.#callConnection(),
    );
    this.#sessionParts = createSessionParts(options, {
      events: this.#events,
      timeouts: this.#timeouts,
      lifetime: this.#lifetime.signal,
      calls,
      listingFailed: async (session, error) => {
        if (session === this.#session && this.#state === "ready")
          await this.#fail(this.#toClientError(error));
      },
    });
    this.#roots = options.features?.roots ?? [];
  }

  /** The current lifecycle state. */
  get state(): McpServerState {
    return this.#state;
  }

  /** Why the server failed or went away, if it did. */
  get error(): { code: string; message: string } | undefined {
    return this.#error;
  }

  /** The negotiated protocol version on the wire, once initialized (`2026-07-28` on the stateless protocol). */
  get protocolVersion(): string | undefined {
    return this.#session?.protocolVersion;
  }

  /** The resources the server listed last (none when it offers no resources). */
  resources(): readonly McpResource[] {
    return this.#sessionParts.catalog.resources;
  }

  /** The resource templates the server listed last. */
  resourceTemplates(): readonly McpResourceTemplate[] {
    return this.#sessionParts.catalog.templates;
  }

  /** The prompts the server listed last (none when it offers no prompts). */
  prompts(): readonly McpPrompt[] {
    return this.#sessionParts.catalog.prompts;
  }

  /**
   * Replaces the roots offered to the server and, when connected, tells it with
   * `notifications/roots/list_changed`. Only for a connection that offers roots (`features.roots`).
   */
  async setRoots(roots: readonly McpRoot[]): Promise<void> {
    if (!this.#options.features?.roots) {
      const message = `Server "${this.name}" was not offered roots.`;
      throw new McpClientError(MCP_CLIENT_ERROR_CODES.invalidOption, message, { server: this.name });
    }
    const changed = JSON.stringify(roots) !== JSON.stringify(this.#roots);
    this.#roots = roots.map((root) => ({ ...root }));
    const transport = this.#transport.current;
    if (changed && this.#state === "ready" && transport) {
      await transport.notify("notifications/roots/list_changed");
    }
  }

  /** Connects, performs the handshake and registers the server's tools; throws {@link McpClientError} on failure, leaving the registry as it was. */
  async start(signal?: AbortSignal): Promise<void> {
    if (this.#state !== "idle") {
      const message = `Server "${this.name}" was already started (${this.#state}).`;
      throw new McpClientError(MCP_CLIENT_ERROR_CODES.connectFailed, message, { server: this.name });
    }
    await this.#connectOrFail(signal);
  }

  /** Lists the tools again and replaces the server's group atomically; returns what changed. */
  async refreshTools(signal?: AbortSignal): Promise<GroupChange> {
    const session = this.#liveSession();
    if (this.#state !== "ready" || !session) {
      const message = `Server "${this.name}" is not connected (${this.#state}).`;
      throw new McpClientError(MCP_CLIENT_ERROR_CODES.notConnected, message, { server: this.name });
    }
    return session.discover(signal);
  }

  /** Resolves once no rediscovery triggered by a `list_changed` (tools, resources, prompts) or an expired `ttlMs` is running or queued. */
  async toolsSettled(): Promise<void> {
    await this.#session?.settled();
    const { reconnector } = this.#recovery;
    while (reconnector?.running) await reconnector.running;
    // A reconnect swapped in another session, whose own listings may be under way.
    await this.#session?.settled();
  }

  /** Reconnects now: a new transport, handshake and discovery; a changed definition replaces the old one. */
  async reconnect(signal?: AbortSignal): Promise<void> {
    this.#throwIfClosed();
    // This reconnect takes over: a crash's run, or a wake that fails meanwhile, would report its failure too.
    this.#recovery.reconnector?.stop();
    this.#reconnecting += 1;
    try {
      if (this.#establishing) {
        // A handshake under way (a wake, the reconnector's attempt) ends first: then this one replaces it.
        await this.#establishing.catch(() => {});
        this.#throwIfClosed();
      }
      // Not ready while the old transport closes: a call meanwhile is mcp_unavailable, not sent to it.
      this.#state = "connecting";
      await this.#closeTransport();
      await this.#connectOrFail(signal);
    } finally {
      this.#reconnecting -= 1;
    }
  }

  /** A summary for listings (`agent mcp list`). */
  snapshot(): McpServerSnapshot {
    return buildSnapshot({
      name: this.name,
      state: this.#state,
      initialized: this.#session?.initialized,
      wire: this.#session?.wire,
      error: this.#error,
      tools: this.#sessionParts.tools.list(),
      rejected: this.#sessionParts.tools.rejected,
      excluded: this.#sessionParts.tools.excluded,
      catalog: this.#sessionParts.catalog,
    });
  }

  /** Closes the connection within `closeMs`, removing the server's tools. Idempotent; never throws (a failure is an `mcp_close_failed` event). */
  close(): Promise<void> {
    this.#closing ??= this.#closeOnce();
    return this.#closing;
  }

  async #closeOnce(): Promise<void> {
    this.#state = "closed";
    this.#lifetime.abort();
    this.#recovery.dormancy?.stop();
    this.#sessionParts.tools.clear();
    this.#sessionParts.catalog.clear();
    await this.#closeTransport();
    // Transports let go before (a reconnect, a dormancy, a failure) may still be closing.
    await this.#transport.settled();
  }

  async #connectOrFail(signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#establish(signal);
    } catch (error) {
      // close() ran meanwhile: what then failed under it (the handshake, a listing) is its doing.
      const failure = this.#isClosed() ? closedError(this.name) : this.#toClientError(error);
      await this.#fail(failure);
      throw failure;
    }
  }

  /** Opens a transport, handshakes and registers; on success the connection is ready. One at a time: a second caller joins the first. */
  #establish(signal: AbortSignal | undefined): Promise<void> {
    this.#establishing ??= this.#establishOnce(signal).finally(() => {
      this.#establishing = undefined;
    });
    return this.#establishing;
  }

  async #establishOnce(signal: AbortSignal | undefined): Promise<void> {
    // Every await below may see close() run meanwhile: a closed connection never comes back.
    this.#throwIfClosed();
    this.#state = "connecting";
    // A transport still held (one that went away, its listeners still on it) is let go first.
    if (this.#transport.current) await this.#closeTransport();
    const { transport, negotiated } = await this.#open();
    const session = await McpSession.open(transport, this.#sessionParts, signal, negotiated);
    this.#session = session;
    await session.discover(signal, true);
    // The server went away after answering: its close was left to this handshake, which must fail.
    if (session.ended) throw closedAfterHandshake(this.name);
    this.#state = "ready";
    this.#error = undefined;
    this.#recovery.dormancy?.restart();
    session.ready();
  }

  /** A transport opened and listened to, and where its handshake says what the server's requests on it are answered under. */
  async #open(): Promise<{ transport: McpTransport; negotiated: (features: ProtocolFeatures) => void }> {
    // Opened after close() ran, it is closed there, and close() waits for that (within closeMs).
    const transport = await this.#transport.open(
      () => startTransport(this.name, this.#options.connect),
      () => this.#isClosed(),
    );
    if (!transport) throw closedError(this.name);
    let features: ProtocolFeatures | undefined;
    const listening = listenTo(transport, {
      closed: (closed, reason) => this.#recovery.transportClosed(closed, reason),
      requests: {
        server: this.name,
        features: this.#options.features ?? {},
        events: this.#events,
        roots: () => this.#roots,
        // What this transport's handshake negotiated; before its answer, the version offered.
        protocol: () => features ?? protocolFeatures(LATEST_PROTOCOL_VERSION),
      },
    });
    this.#transport.hold(transport, listening);
    return { transport, negotiated: (negotiated) => (features = negotiated) };
  }

  /** What the recovery (the idle close and wake, the reconnector) reads and does to this connection. */
  #recoveryPort(): RecoveryPort {
    return {
      server: this.name,
      events: this.#events,
      lifetime: this.#lifetime.signal,
      state: () => this.#state,
      enter: (state, error) => {
        this.#state = state;
        if (error) this.#error = error;
      },
      takenOver: () => this.#isClosed() || this.#reconnecting > 0,
      holds: (transport) => transport === this.#transport.current,
      establish: () => this.#establish(this.#lifetime.signal),
      fail: (error) => this.#fail(this.#toClientError(error)),
      release: () => this.#closeTransport(),
    };
  }

  async #fail(error: McpClientError): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "failed";
    this.#recovery.dormancy?.stop();
    this.#error = { code: error.code, message: error.message };
    this.#sessionParts.tools.unregister();
    emitEvent(this.#events, {
      type: "mcp_server_failed",
      server: this.name,
      code: error.code,
      message: error.message,
    });
    await this.#closeTransport();
  }

  /** Lets go of the transport held: its session ends (nothing more is sent or listed on it), then it closes. */
  async #closeTransport(): Promise<void> {
    this.#session?.end();
    await this.#transport.release();
  }

  /** What the calls ask live: the lifecycle state, the session swapped in last, the tool registered now. */
  #callConnection(): CallConnection {
    const connection = () => this;
    return {
      get state() {
        return connection().#state;
      },
      get session() {
        return connection().#liveSession();
      },
      currentTool: (remoteName) => this.#sessionParts.tools.currentTool(remoteName),
    };
  }

  /** The current session while its transport is held; an ended one is kept only for snapshots. */
  #liveSession(): McpSession | undefined {
    const session = this.#session;
    return session && !session.ended ? session : undefined;
  }

  #isClosed(): boolean {
    return this.#state === "closed";
  }

  #throwIfClosed(): void {
    if (this.#isClosed()) throw closedError(this.name);
  }

  #toClientError(error: unknown): McpClientError {
    return toMcpClientError(error, this.name);
  }
}
