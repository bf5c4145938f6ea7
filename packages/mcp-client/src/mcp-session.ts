import type { McpTransport, McpWireProtocol } from "@agent/mcp-transport";
import type { EventSink, GroupChange } from "@agent/tools";
import { clientCapabilities } from "./client-features.js";
import { createCoalescingRunner } from "./coalescing-runner.js";
import { type CatalogKinds, ConnectionCatalog, catalogKinds } from "./connection-catalog.js";
import {
  type McpServerConnectionOptions,
  type McpServerState,
  type McpServerTimeouts,
  resolveListingLimits,
  resolveListTtlBounds,
} from "./connection-options.js";
import { type PhaseRun, runHandshakePhase } from "./connection-phases.js";
import { MCP_CLIENT_ERROR_CODES, McpClientError } from "./errors.js";
import { DEFAULT_CLIENT_INFO, type InitializeResult } from "./handshake.js";
import { instrumentTransport } from "./instrumented-transport.js";
import { ListChangedRouter } from "./list-changed.js";
import { combineOptionalHints, type FreshnessBounds, ListFreshness } from "./list-freshness.js";
import { createPhaseContext } from "./phase.js";
import { type ProtocolFeatures, protocolFeatures } from "./protocol-version.js";
import type { ServerCalls } from "./server-calls.js";
import { ServerToolGroup } from "./server-tool-group.js";
import type { RemoteToolPort } from "./tool-mapping.js";

/** What every session of one connection is born with besides its transport: the connection's fixed parts. */
export interface SessionParts {
  options: McpServerConnectionOptions;
  events: EventSink;
  timeouts: McpServerTimeouts;
  /** How long a stateless server's catalog is trusted, whatever its `ttlMs` says. */
  listTtl: FreshnessBounds;
  /** The connection's lifetime: aborted by close(), which cancels a listing of the session's own under way. */
  lifetime: AbortSignal;
  /** The connection's part of the registry, which outlives its sessions (a dormant server keeps its tools). */
  tools: ServerToolGroup;
  /** The connection's resources and prompts, listed anew by each session. */
  catalog: ConnectionCatalog;
  /**
   * The one thing a session asks of its connection: to fail closed when a listing of its own after a
   * `list_changed` or an expired `ttlMs` cannot be read (a catalog that cannot be read again cannot
   * be trusted). The connection ignores it from a session that is no longer its ready one.
   */
  listingFailed(session: McpSession, error: unknown): Promise<void>;
}

/**
 * The parts every session of a connection shares: its registry group and its catalog, whose tools
 * all call the server through `calls` (the connection's session of the moment), and the bounds of
 * its listings.
 */
export function createSessionParts(
  options: McpServerConnectionOptions,
  connection: Pick<SessionParts, "events" | "timeouts" | "lifetime" | "listingFailed"> & {
    /** The port the tools call through: {@link ServerCalls}, which sends on the session of the moment. */
    calls: RemoteToolPort & Pick<ServerCalls, "request">;
  },
): SessionParts {
  const { calls, ...rest } = connection;
  const tools = new ServerToolGroup({
    server: options.name,
    registry: options.registry,
    events: connection.events,
    port: calls,
    limits: resolveListingLimits(options),
    ...(options.includeTool ? { include: options.includeTool } : {}),
    ...(options.identity === undefined ? {} : { serverIdentity: options.identity }),
  });
  const catalog = new ConnectionCatalog(
    {
      server: options.name,
      serverIdentity: options.identity,
      request: (method, params, action, context, stillApplies) =>
        calls.request(method, params, action, context, stillApplies),
    },
    connection.events,
  );
  return { ...rest, options, listTtl: resolveListTtlBounds(options), tools, catalog };
}

/**
 * What one successful handshake made: the transport it ran on, what was negotiated (the server's
 * answer, the wire protocol, what that version defines), and the listings made on it (the first,
 * those after `list_changed`, those after an expired `ttlMs`). Immutable in what it was born with; it
 * ends with its transport, and a reconnect or a wake from dormancy is a new session.
 */
export class McpSession {
  /** The transport the handshake ran on. */
  readonly transport: McpTransport;
  /** The server's answer to the handshake. */
  readonly initialized: InitializeResult;
  /** Which protocol the handshake settled on the wire (a transport that does not say: the handshake). */
  readonly wire: McpWireProtocol;
  /** What the negotiated version defines. */
  readonly features: ProtocolFeatures;
  /** Which listings the server's capabilities call for. */
  readonly kinds: CatalogKinds;
  readonly #parts: SessionParts;
  /** The transport as listings use it: every request in the audit trail. */
  readonly #listing: McpTransport;
  readonly #freshness: ListFreshness;
  #phase: McpServerState = "connecting";
  readonly #listChanged: ListChangedRouter;
  /** Catalog kinds whose `list_changed` arrived and is not yet answered. */
  #catalogChanged: Partial<CatalogKinds> = {};
  readonly #catalogRefresher = createCoalescingRunner(() => this.#relistChangedCatalog());
  /** The re-listing of an expired (ttlMs) catalog under way, which every call that needs it awaits. */
  #relisting: Promise<void> | undefined;
  readonly #unsubscribe: (() => void)[];

  /**
   * Performs the handshake on a new transport within `initializeMs`; throws `McpClientError` on
   * failure. `negotiated` hears what the server's answer defines as soon as it is in, before the
   * server may send requests: they are answered under it while the session is still being made.
   */
  static async open(
    transport: McpTransport,
    parts: SessionParts,
    signal: AbortSignal | undefined,
    negotiated: (features: ProtocolFeatures) => void = () => {},
  ): Promise<McpSession> {
    const { options, events, timeouts, lifetime } = parts;
    const listing = instrumentTransport(transport, events, options.name, lifetime);
    // close() may run as the handshake is answered or confirmed: it ends there, never reported done.
    const stillOpen = () => {
      if (lifetime.aborted) throw closedError(options.name);
    };
    const initialized = await runHandshakePhase(
      listingPhase(options.name, listing, events, signal, timeouts.initializeMs),
      options.clientInfo ?? DEFAULT_CLIENT_INFO,
      // Only what can be answered: a transport without onRequest gets no server request to a handler.
      clientCapabilities(transport.onRequest ? (options.features ?? {}) : {}),
      // Read once the handshake is answered: the audit names the version on the wire.
      () => transport.wireProtocol?.(),
      {
        answered: (answer) => {
          stillOpen();
          negotiated(protocolFeatures(answer.protocolVersion));
        },
        confirmed: stillOpen,
      },
    );
    const wire = transport.wireProtocol?.() ?? { era: "handshake" };
    return new McpSession(parts, transport, listing, initialized, wire);
  }

  private constructor(
    parts: SessionParts,
    transport: McpTransport,
    listing: McpTransport,
    initialized: InitializeResult,
    wire: McpWireProtocol,
  ) {
    this.#parts = parts;
    this.transport = transport;
    this.#listing = listing;
    this.initialized = initialized;
    this.wire = wire;
    this.features = protocolFeatures(initialized.protocolVersion);
    this.kinds = catalogKinds(initialized.capabilities ?? {});
    this.#freshness = new ListFreshness(parts.listTtl);
    this.#listChanged = new ListChangedRouter({
      state: () => this.#phase,
      rediscoverTools: () => this.#relist(false),
      catalogChanged: (kind, deferred) => this.#noteCatalogChanged(kind, deferred),
    });
    // A list_changed sent before the handshake ended is answered by the first listing itself.
    this.#unsubscribe = [
      transport.onNotification((notification) => this.#listChanged.route(notification.method)),
      transport.onClose(() => this.end()),
    ];
  }

  /** The version on the wire (`2026-07-28` on the stateless protocol). */
  get protocolVersion(): string {
    return this.wire.era === "stateless" ? this.wire.protocolVersion : this.initialized.protocolVersion;
  }

  /**
   * Lists the tools (and, `withCatalog`, the resources and prompts) within `listToolsMs` each, then
   * replaces the server's registry group atomically; returns what changed. The shortest `ttlMs` of
   * the listings sets when a stateless server's catalog goes stale.
   */
  async discover(signal: AbortSignal | undefined, withCatalog = false): Promise<GroupChange> {
    const { options, events, timeouts, tools, catalog, lifetime } = this.#parts;
    const { listToolsMs } = timeouts;
    const run = listingPhase(options.name, this.#listing, events, signal, listToolsMs);
    const change = await tools.discover(run, this.features, async () => {
      if (withCatalog) {
        const phase = createPhaseContext(signal, listToolsMs);
        await catalog.refresh(this.#listing, phase.context, this.kinds, this.#keepsListings);
      }
      // close() may have run while the listing was under way: a closed server registers nothing.
      if (lifetime.aborted) throw closedError(options.name);
      return catalog.tools(this.kinds);
    });
    // The catalog is as current as its least current listing: tools, resources and prompts together.
    const hints = combineOptionalHints(tools.cacheHints, catalog.cacheHints);
    if (hints) this.#freshness.listed(hints, this.wire.era === "stateless");
    return change;
  }

  /** The first listing is done and the connection is ready on this session: answers the `list_changed` that arrived meanwhile. */
  ready(): void {
    if (this.#phase !== "connecting") return;
    this.#phase = "ready";
    this.#listChanged.connected();
    if (this.#catalogChanged.resources || this.#catalogChanged.prompts) this.#catalogRefresher.request();
  }

  /**
   * Undefined when the catalog is current (no await on a call's way); else the re-listing of a
   * stateless server's expired catalog (`ttlMs`) to await first, one for every call that needs it.
   */
  relistIfStale(): Promise<void> | undefined {
    if (this.#relisting) return this.#relisting;
    if (this.#phase !== "ready" || !this.#freshness.isStale()) return undefined;
    this.#relisting = this.#relist(true).finally(() => {
      this.#relisting = undefined;
    });
    return this.#relisting;
  }

  /** Resolves once no listing of this session (after `list_changed` or an expired `ttlMs`) is running or queued. */
  async settled(): Promise<void> {
    await this.#relisting;
    await this.#listChanged.settled();
    await this.#catalogRefresher.settled();
  }

  /** Whether what a listing of this session brings in may be kept: it is live and its connection open. */
  readonly #keepsListings = (): boolean => !this.ended && !this.#parts.lifetime.aborted;

  /** Whether the session's transport was let go or went away (see {@link McpSession.end}). */
  get ended(): boolean {
    return this.#phase === "closed";
  }

  /** The session's transport was let go or went away: nothing more is listed on it. Idempotent. */
  end(): void {
    this.#phase = "closed";
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
  }

  /** Lists again after a `list_changed` (tools) or an expired `ttlMs` (`withCatalog`: everything). */
  async #relist(withCatalog: boolean): Promise<void> {
    if (this.#phase !== "ready") return;
    try {
      await this.discover(this.#parts.lifetime, withCatalog);
    } catch (error) {
      await this.#parts.listingFailed(this, error);
    }
  }

  /** A resources or prompts `list_changed`: listed again at once, or once ready (`deferred`). */
  #noteCatalogChanged(kind: keyof CatalogKinds, deferred: boolean): void {
    this.#catalogChanged[kind] = true;
    if (!deferred) this.#catalogRefresher.request();
  }

  async #relistChangedCatalog(): Promise<void> {
    const wanted = this.#catalogChanged;
    this.#catalogChanged = {};
    if (this.#phase !== "ready") return;
    const { kinds } = this;
    try {
      const phase = createPhaseContext(this.#parts.lifetime, this.#parts.timeouts.listToolsMs);
      await this.#parts.catalog.refresh(
        this.#listing,
        phase.context,
        {
          ...(wanted.resources && kinds.resources ? { resources: true } : {}),
          ...(wanted.prompts && kinds.prompts ? { prompts: true } : {}),
        },
        this.#keepsListings,
      );
    } catch (error) {
      await this.#parts.listingFailed(this, error);
    }
  }
}

function listingPhase(
  server: string,
  transport: McpTransport,
  events: EventSink,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): PhaseRun {
  return { server, transport, events, signal, timeoutMs };
}

/** The error of a connection closed while it was connecting. */
export function closedError(server: string): McpClientError {
  return new McpClientError(MCP_CLIENT_ERROR_CODES.notConnected, `Server "${server}" was closed.`, {
    server,
  });
}

/** The error of a server that went away between answering its first listing and the connection becoming ready. */
export function closedAfterHandshake(server: string): McpClientError {
  return new McpClientError(
    MCP_CLIENT_ERROR_CODES.connectionClosed,
    `Server "${server}" went away right after its handshake.`,
    { server },
  );
}
