import type { McpTransport, McpWireProtocol } from "@agent/mcp-transport";
import type { EventSink, GroupChange } from "@agent/tools";
import { clientCapabilities } from "./client-features.js";
import { type CatalogKinds, ConnectionCatalog, catalogKinds } from "./connection-catalog.js";
import {
  type McpServerConnectionOptions,
  type McpServerTimeouts,
  resolveListingLimits,
  resolveListTtlBounds,
} from "./connection-options.js";
import { type PhaseRun, runHandshakePhase } from "./connection-phases.js";
import { DEFAULT_CLIENT_INFO, type InitializeResult } from "./handshake.js";
import { instrumentTransport } from "./instrumented-transport.js";
import { combineOptionalHints, ListFreshness } from "./list-freshness.js";
import { createPhaseContext } from "./phase.js";
import { LATEST_PROTOCOL_VERSION, type ProtocolFeatures, protocolFeatures } from "./protocol-version.js";
import type { ServerCalls } from "./server-calls.js";
import { ServerToolGroup } from "./server-tool-group.js";

/** What a connection's discovery reads of the connection it serves. */
export interface DiscoveryConnection {
  events: EventSink;
  timeouts: McpServerTimeouts;
  /** The connection's lifetime: aborted by close(), which cancels a listing of its own under way. */
  signal: AbortSignal;
  /** The transport while the connection is ready (a catalog `list_changed` lists on it); else undefined. */
  readyTransport(): McpTransport | undefined;
  /** Fails the connection closed if it is ready: a listing that cannot be read again cannot be trusted. */
  fail(error: unknown): Promise<void>;
  /** Throws when close() ran meanwhile: a closed server registers nothing. */
  throwIfClosed(): void;
}

/**
 * What a connection learns from its server each time it connects, and puts in the registry: the
 * handshake's answer (whose protocol version fixes what the rest is held to), the server's tools as
 * one atomic registry group, and its resources and prompts with the built-in tools that read them.
 * Each phase runs within its deadline; when the connection is ready or fails is the connection's call.
 */
export class ConnectionDiscovery {
  /** The server's part of the registry. */
  readonly tools: ServerToolGroup;
  /** The server's resources, templates and prompts. */
  readonly catalog: ConnectionCatalog;
  readonly #server: string;
  readonly #options: McpServerConnectionOptions;
  readonly #connection: DiscoveryConnection;
  #initialized: InitializeResult | undefined;
  #wire: McpWireProtocol | undefined;
  readonly #freshness: ListFreshness;

  constructor(options: McpServerConnectionOptions, calls: ServerCalls, connection: DiscoveryConnection) {
    this.#server = options.name;
    this.#options = options;
    this.#connection = connection;
    this.#freshness = new ListFreshness(resolveListTtlBounds(options));
    this.tools = new ServerToolGroup({
      server: options.name,
      registry: options.registry,
      events: connection.events,
      port: calls,
      limits: resolveListingLimits(options),
      ...(options.includeTool ? { include: options.includeTool } : {}),
      ...(options.identity === undefined ? {} : { serverIdentity: options.identity }),
    });
    this.catalog = new ConnectionCatalog(
      {
        server: options.name,
        serverIdentity: options.identity,
        request: (method, params, action, context) => calls.request(method, params, action, context),
      },
      connection.events,
      {
        readyTransport: () => {
          const transport = connection.readyTransport();
          return transport && this.#instrument(transport);
        },
        kinds: () => this.#kinds(),
        fail: (error) => connection.fail(error),
        signal: connection.signal,
        listMs: connection.timeouts.listToolsMs,
      },
    );
  }

  /** The server's answer to the last handshake, once there was one. */
  get initialized(): InitializeResult | undefined {
    return this.#initialized;
  }

  /** Which protocol the last handshake settled on the wire (a transport that does not say: the handshake). */
  get wire(): McpWireProtocol | undefined {
    return this.#wire;
  }

  /** What the negotiated version defines; the latest version's before the handshake. */
  features(): ProtocolFeatures {
    return protocolFeatures(this.#initialized?.protocolVersion ?? LATEST_PROTOCOL_VERSION);
  }

  /** Performs the handshake on a new transport within `initializeMs`; throws `McpClientError` on failure. */
  async handshake(transport: McpTransport, signal: AbortSignal | undefined): Promise<void> {
    this.#wire = undefined;
    this.#freshness.clear();
    this.#initialized = await runHandshakePhase(
      this.#phase(transport, signal, this.#connection.timeouts.initializeMs),
      this.#options.clientInfo ?? DEFAULT_CLIENT_INFO,
      clientCapabilities(this.#options.features ?? {}),
      // Read once the handshake is answered: the audit names the version on the wire.
      () => transport.wireProtocol?.(),
    );
    this.#wire = transport.wireProtocol?.() ?? { era: "handshake" };
  }

  /**
   * Whether a stateless server's listing outlived its `ttlMs` (clamped to `listTtl`): the catalog
   * must be listed again before it is used. Never for a handshake-era server (`list_changed` is its way).
   */
  isStale(): boolean {
    return this.#freshness.isStale();
  }

  /**
   * Lists the tools (and, `withCatalog`, the resources and prompts) within `listToolsMs` each, then
   * replaces the server's registry group atomically; returns what changed. The shortest `ttlMs` of
   * the listings sets when a stateless server's catalog goes stale.
   */
  async discover(
    transport: McpTransport,
    signal: AbortSignal | undefined,
    withCatalog = false,
  ): Promise<GroupChange> {
    const kinds = this.#kinds();
    const { listToolsMs } = this.#connection.timeouts;
    const run = this.#phase(transport, signal, listToolsMs);
    const change = await this.tools.discover(run, this.features(), async () => {
      if (withCatalog) {
        const phase = createPhaseContext(signal, listToolsMs);
        await this.catalog.refresh(this.#instrument(transport), phase.context, kinds);
      }
      // close() may have run while the listing was under way: a closed server registers nothing.
      this.#connection.throwIfClosed();
      return this.catalog.tools(kinds);
    });
    // The catalog is as current as its least current listing: tools, resources and prompts together.
    const hints = combineOptionalHints(this.tools.cacheHints, this.catalog.cacheHints);
    if (hints) this.#freshness.listed(hints, this.#wire?.era === "stateless");
    return change;
  }

  #kinds(): CatalogKinds {
    return catalogKinds(this.#initialized?.capabilities ?? {});
  }

  #phase(transport: McpTransport, signal: AbortSignal | undefined, timeoutMs: number): PhaseRun {
    return {
      server: this.#server,
      transport: this.#instrument(transport),
      events: this.#connection.events,
      signal,
      timeoutMs,
    };
  }

  #instrument(transport: McpTransport): McpTransport {
    const { events, signal } = this.#connection;
    return instrumentTransport(transport, events, this.#server, signal);
  }
}
