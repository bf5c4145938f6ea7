import {
  type EventSink,
  emitEvent,
  type GroupChange,
  type JsonValue,
  type RegisteredTool,
  type ToolRegistry,
} from "@agent/tools";
import { type PhaseRun, runListingPhase } from "./connection-phases.js";
import type { ListToolsOptions, RejectedTool, ToolListing } from "./discovery.js";
import type { CacheHints } from "./list-freshness.js";
import type { ProtocolFeatures } from "./protocol-version.js";
import {
  buildServerTools,
  type MappedTools,
  replaceServerGroup,
  type ServerToolSet,
} from "./server-tools.js";
import { since } from "./time.js";
import { mcpToolGroup, type RemoteToolPort } from "./tool-mapping.js";

/** Options of {@link ServerToolGroup}. */
export interface ServerToolGroupOptions {
  server: string;
  registry: ToolRegistry;
  events: EventSink;
  /** The port every mapped tool calls the server through. */
  port: RemoteToolPort;
  /** Bounds of one listing (pages, tools, bytes). */
  limits: ListToolsOptions;
  include?: (remoteName: string) => boolean;
  serverIdentity?: JsonValue;
}

/**
 * One server's part of the registry: each discovery maps the listing (reusing the tools whose
 * definition did not change), then replaces the group atomically and says so in the audit trail
 * (`mcp_tool_rejected`, `mcp_tools_listed`, and `mcp_tools_changed` from the second listing on).
 */
export class ServerToolGroup {
  readonly name: string;
  readonly #options: ServerToolGroupOptions;
  #listedOnce = false;
  #rejected: RejectedTool[] = [];
  #excluded: string[] = [];
  #cache: CacheHints | undefined;
  /** The last discovery's tools, reused by the next one where a definition did not change. */
  #mapped: MappedTools = new Map();

  constructor(options: ServerToolGroupOptions) {
    this.name = mcpToolGroup(options.server);
    this.#options = options;
  }

  /** The tools the last discovery rejected, with their reasons. */
  get rejected(): RejectedTool[] {
    return this.#rejected;
  }

  /** The remote names the configuration excluded at the last discovery. */
  get excluded(): string[] {
    return this.#excluded;
  }

  /** The caching hints of the last listing, once there was one. */
  get cacheHints(): CacheHints | undefined {
    return this.#cache;
  }

  /** The tool registered now for a remote name (a reconnect that lists a changed definition replaces it). */
  currentTool(remoteName: string): RegisteredTool | undefined {
    return this.#mapped.get(remoteName)?.tool;
  }

  /** What is registered now. */
  list(): RegisteredTool[] {
    return this.#options.registry.listGroup(this.name);
  }

  /**
   * Lists the tools (the listing phase `run`), maps them, then registers them with what `extra`
   * adds (the built-in tools; it may throw to register nothing, e.g. when the connection closed).
   */
  async discover(
    run: PhaseRun,
    features: ProtocolFeatures,
    extra: () => Promise<readonly RegisteredTool[]>,
  ): Promise<GroupChange> {
    const started = performance.now();
    const listing = await runListingPhase(run, { ...this.#options.limits, features });
    const set = this.#map(listing);
    const builtin = await extra();
    const change = this.#commit(set, builtin, { pages: listing.pages, durationMs: since(started) });
    this.#cache = listing.cache;
    return change;
  }

  #map(listing: ToolListing): ServerToolSet {
    const { include, port, serverIdentity } = this.#options;
    return buildServerTools(listing, {
      include: include ?? (() => true),
      server: port,
      previous: this.#mapped,
      ...(serverIdentity === undefined ? {} : { serverIdentity }),
    });
  }

  #commit(
    set: ServerToolSet,
    extra: readonly RegisteredTool[],
    listing: { pages: number; durationMs: number },
  ): GroupChange {
    const { server, registry, events } = this.#options;
    const change = replaceServerGroup(registry, server, [...set.tools, ...extra]);
    this.#mapped = set.mapped;
    this.#rejected = set.rejected;
    this.#excluded = set.excluded;
    const { added, removed, changed } = change;
    if (this.#listedOnce && added.length + removed.length + changed.length > 0) {
      emitEvent(events, { type: "mcp_tools_changed", server, added, removed, changed });
    }
    this.#listedOnce = true;
    for (const { remoteName, reason } of set.rejected) {
      emitEvent(events, { type: "mcp_tool_rejected", server, remoteName, reason });
    }
    emitEvent(events, {
      type: "mcp_tools_listed",
      server,
      count: set.tools.length,
      rejected: set.rejected.length,
      pages: listing.pages,
      durationMs: listing.durationMs,
    });
    return change;
  }

  /** Takes the tools out of the registry; the next discovery still reuses the unchanged ones. */
  unregister(): void {
    this.#options.registry.removeGroup(this.name);
  }

  /** Takes the tools out and forgets them (the connection closed for good). */
  clear(): void {
    this.unregister();
    this.#mapped = new Map();
  }
}
