import type { McpCloseReason, McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent, type GroupChange, NULL_EVENT_SINK } from "@agent/tools";
import type { McpRoot } from "./client-features.js";
import { closeTransportWithin } from "./close-transport.js";
import { ConnectionDiscovery } from "./connection-discovery.js";
import {
  buildSnapshot,
  type McpServerConnectionOptions,
  type McpServerSnapshot,
  type McpServerState,
  type McpServerTimeouts,
  resolveIdleTimeout,
  resolveReconnectPolicy,
  resolveTimeouts,
} from "./connection-options.js";
import { Reconnector, type ReconnectTarget } from "./connection-reconnect.js";
import { Dormancy } from "./dormancy.js";
import { MCP_CLIENT_ERROR_CODES, McpClientError, toMcpClientError } from "./errors.js";
import { ListChangedRouter } from "./list-changed.js";
import { assertServerName } from "./names.js";
import { listenTo, startTransport } from "./open-transport.js";
import { ServerCalls } from "./server-calls.js";
import type { McpPrompt, McpResource, McpResourceTemplate } from "./server-catalog.js";
import { mcpToolGroup } from "./tool-mapping.js";

/**
 * One governed connection to an MCP server: handshake, discovery into the registry (as one atomic
 * group), rediscovery on `list_changed`, calls that go through the transport with the caller's
 * signal, reconnects, and a close that never throws. Every phase has a timeout and every step an event.
 * This class is the lifecycle (`idle`, `connecting`, `ready`, `dormant`, `disconnected`, `failed`,
 * `closed`) and the transport it holds; what each connection learns and registers is its
 * {@link ConnectionDiscovery}, and its calls go through {@link ServerCalls}.
 */
export class McpServerConnection {
  readonly name: string;
  readonly group: string;
  readonly #options: McpServerConnectionOptions;
  readonly #events: EventSink;
  readonly #timeouts: McpServerTimeouts;
  readonly #reconnector: Reconnector | undefined;
  readonly #lifetime = new AbortController();
  #state: McpServerState = "idle";
  #transport: McpTransport | undefined;
  #unsubscribe: (() => void)[] = [];
  readonly #discovery: ConnectionDiscovery;
  #error: { code: string; message: string } | undefined;
  readonly #listChanged = new ListChangedRouter({
    state: () => this.#state,
    rediscoverTools: () => this.#relist(false),
    catalogChanged: (kind, connecting) => this.#discovery.catalog.changed(kind, connecting),
  });
  readonly #idle: Dormancy | undefined;
  readonly #calls: ServerCalls;
  #roots: readonly McpRoot[];
  #closing: Promise<void> | undefined;
  /** The re-listing of an expired (ttlMs) catalog under way, which every call that needs it awaits. */
  #relisting: Promise<void> | undefined;

  constructor(options: McpServerConnectionOptions) {
    assertServerName(options.name);
    this.name = options.name;
    this.group = mcpToolGroup(options.name);
    this.#calls = new ServerCalls({
      server: options.name,
      state: () => this.#state,
      transport: () => this.#transport,
      dormancy: () => this.#idle,
      callMs: () => this.#timeouts.callMs,
      events: () => this.#events,
      structuredContent: () => this.#discovery.features().structuredContent,
      currentTool: (remoteName) => this.#discovery.tools.currentTool(remoteName),
      relistIfStale: () => this.#relistIfStale(),
    });
    this.#options = options;
    this.#events = options.events ?? NULL_EVENT_SINK;
    this.#timeouts = resolveTimeouts(options.timeouts);
    this.#discovery = new ConnectionDiscovery(options, this.#calls, {
      events: this.#events,
      timeouts: this.#timeouts,
      signal: this.#lifetime.signal,
      readyTransport: () => (this.#state === "ready" ? this.#transport : undefined),
      fail: async (error) => {
        if (this.#state === "ready") await this.#fail(this.#toClientError(error));
      },
      throwIfClosed: () => this.#throwIfClosed(),
    });
    const reconnect = resolveReconnectPolicy(options.reconnect);
    this.#reconnector = reconnect && new Reconnector(reconnect, this.#reconnectTarget());
    this.#roots = options.features?.roots ?? [];
    const idleTimeoutMs = resolveIdleTimeout(options);
    if (idleTimeoutMs !== undefined) {
      this.#idle = new Dormancy(idleTimeoutMs, {
        sleep: () => void this.#goDormant(idleTimeoutMs),
        reopen: () => this.#establish(this.#lifetime.signal),
        reopenFailed: (error) => this.#fail(this.#toClientError(error)),
      });
    }
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
    const wire = this.#discovery.wire;
    return wire?.era === "stateless" ? wire.protocolVersion : this.#discovery.initialized?.protocolVersion;
  }

  /** The resources the server listed last (none when it offers no resources). */
  resources(): readonly McpResource[] {
    return this.#discovery.catalog.resources;
  }

  /** The resource templates the server listed last. */
  resourceTemplates(): readonly McpResourceTemplate[] {
    return this.#discovery.catalog.templates;
  }

  /** The prompts the server listed last (none when it offers no prompts). */
  prompts(): readonly McpPrompt[] {
    return this.#discovery.catalog.prompts;
  }

  /**
   * Replaces the roots offered to the server and, when connected, tells it with
   * `notifications/roots/list_changed`. Only for a connection that offers roots (`features.roots`).
   */
  async setRoots(roots: readonly McpRoot[]): Promise<void> {
    if (!this.#options.features?.roots) {
      throw new McpClientError(
        MCP_CLIENT_ERROR_CODES.invalidOption,
        `Server "${this.name}" was not offered roots.`,
        {
          server: this.name,
        },
      );
    }
    const changed = JSON.stringify(roots) !== JSON.stringify(this.#roots);
    this.#roots = roots.map((root) => ({ ...root }));
    if (changed && this.#state === "ready" && this.#transport) {
      await this.#transport.notify("notifications/roots/list_changed");
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
    if (this.#state !== "ready" || !this.#transport) {
      const message = `Server "${this.name}" is not connected (${this.#state}).`;
      throw new McpClientError(MCP_CLIENT_ERROR_CODES.notConnected, message, { server: this.name });
    }
    return this.#discovery.discover(this.#transport, signal);
  }

  /** Resolves once no rediscovery triggered by a `list_changed` (tools, resources, prompts) or an expired `ttlMs` is running or queued. */
  async toolsSettled(): Promise<void> {
    await this.#relisting;
    await this.#listChanged.settled();
    while (this.#reconnector?.running) await this.#reconnector.running;
    await this.#listChanged.settled();
    await this.#discovery.catalog.settled();
  }

  /** Reconnects now: a new transport, handshake and discovery; a changed definition replaces the old one. */
  async reconnect(signal?: AbortSignal): Promise<void> {
    this.#throwIfClosed();
    await this.#closeTransport();
    await this.#connectOrFail(signal);
  }

  /** A summary for listings (`agent mcp list`). */
  snapshot(): McpServerSnapshot {
    return buildSnapshot({
      name: this.name,
      state: this.#state,
      initialized: this.#discovery.initialized,
      wire: this.#discovery.wire,
      error: this.#error,
      tools: this.#discovery.tools.list(),
      rejected: this.#discovery.tools.rejected,
      excluded: this.#discovery.tools.excluded,
      catalog: this.#discovery.catalog,
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
    this.#idle?.stop();
    this.#discovery.tools.clear();
    this.#discovery.catalog.clear();
    await this.#closeTransport();
  }

  async #connectOrFail(signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.#establish(signal);
    } catch (error) {
      const failure = this.#toClientError(error);
      await this.#fail(failure);
      throw failure;
    }
  }

  /** Opens a transport, handshakes and registers; on success the connection is ready. */
  async #establish(signal: AbortSignal | undefined): Promise<void> {
    // Every await below may see close() run meanwhile: a closed connection never comes back.
    this.#throwIfClosed();
    this.#state = "connecting";
    const transport = await this.#open();
    await this.#discovery.handshake(transport, signal);
    this.#listChanged.listingStarted();
    this.#discovery.catalog.connecting();
    await this.#discovery.discover(transport, signal, true);
    this.#state = "ready";
    this.#error = undefined;
    this.#idle?.restart();
    this.#listChanged.connected();
    this.#discovery.catalog.connected();
  }

  async #open(): Promise<McpTransport> {
    const transport = await startTransport(this.name, this.#options.connect);
    if (this.#isClosed()) {
      // Opened after close() ran: nobody else will close it.
      await closeTransportWithin(transport, this.#timeouts.closeMs, this.#events, this.name);
      this.#throwIfClosed();
    }
    this.#transport = transport;
    this.#unsubscribe = listenTo(transport, {
      notification: (method) => this.#listChanged.route(method),
      closed: (closed, reason) => this.#onTransportClosed(closed, reason),
      requests: {
        server: this.name,
        features: this.#options.features ?? {},
        events: this.#events,
        roots: () => this.#roots,
        protocol: () => this.#discovery.features(),
      },
    });
    return transport;
  }

  /** Undefined when the catalog is current (no await on a call's way); else the re-listing to await first. */
  #relistIfStale(): Promise<void> | undefined {
    if (this.#relisting) return this.#relisting;
    if (this.#state !== "ready" || !this.#discovery.isStale()) return undefined;
    this.#relisting = this.#relist(true).finally(() => {
      this.#relisting = undefined;
    });
    return this.#relisting;
  }

  /** Lists again after a `list_changed` (tools) or an expired `ttlMs` (`withCatalog`: everything). */
  async #relist(withCatalog: boolean): Promise<void> {
    const transport = this.#transport;
    if (this.#state !== "ready" || !transport) return;
    try {
      await this.#discovery.discover(transport, this.#lifetime.signal, withCatalog);
    } catch (error) {
      // A tool list that cannot be read again cannot be trusted: fail closed.
      if (this.#state === "ready") await this.#fail(this.#toClientError(error));
    }
  }

  /** Closes an idle connection; its tools stay registered and the next use reopens it. */
  async #goDormant(idleMs: number): Promise<void> {
    if (this.#state !== "ready") return;
    this.#state = "dormant";
    emitEvent(this.#events, { type: "mcp_idle_closed", server: this.name, idleMs });
    await this.#closeTransport();
  }

  #onTransportClosed(transport: McpTransport, reason: McpCloseReason): void {
    // While connecting, the pending handshake or listing fails by itself and reports why.
    if (transport !== this.#transport || reason.kind === "client" || this.#state !== "ready") return;
    this.#state = "disconnected";
    this.#error = { code: "mcp_connection_closed", message: reason.message };
    emitEvent(this.#events, {
      type: "mcp_server_exited",
      server: this.name,
      reason: reason.kind,
      message: reason.message,
    });
    this.#reconnector?.start();
  }

  #reconnectTarget(): ReconnectTarget {
    return {
      server: this.name,
      events: this.#events,
      signal: this.#lifetime.signal,
      establish: () => this.#establish(this.#lifetime.signal),
      attemptFailed: async (error) => {
        const { code, message } = this.#toClientError(error);
        this.#error = { code, message };
        this.#state = "disconnected";
        await this.#closeTransport();
      },
      gaveUp: (message) =>
        this.#fail(
          new McpClientError(MCP_CLIENT_ERROR_CODES.connectionClosed, message, { server: this.name }),
        ),
    };
  }

  async #fail(error: McpClientError): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "failed";
    this.#idle?.stop();
    this.#error = { code: error.code, message: error.message };
    this.#discovery.tools.unregister();
    emitEvent(this.#events, {
      type: "mcp_server_failed",
      server: this.name,
      code: error.code,
      message: error.message,
    });
    await this.#closeTransport();
  }

  async #closeTransport(): Promise<void> {
    const transport = this.#transport;
    this.#detach();
    if (transport) await closeTransportWithin(transport, this.#timeouts.closeMs, this.#events, this.name);
  }

  #isClosed(): boolean {
    return this.#state === "closed";
  }

  #throwIfClosed(): void {
    if (this.#isClosed()) {
      throw new McpClientError(MCP_CLIENT_ERROR_CODES.notConnected, `Server "${this.name}" was closed.`, {
        server: this.name,
      });
    }
  }

  #detach(): void {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribe = [];
    this.#transport = undefined;
  }

  #toClientError(error: unknown): McpClientError {
    return toMcpClientError(error, this.name);
  }
}
