import type { McpRequestContext, McpTransport } from "@agent/mcp-transport";
import { type EventSink, emitEvent, type RegisteredTool } from "@agent/tools";
import { type CacheHints, combineOptionalHints } from "./list-freshness.js";
import {
  listPrompts,
  listResources,
  listResourceTemplates,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  type RejectedEntry,
} from "./server-catalog.js";
import { createPromptTool, createResourceTools, type ServerCatalogPort } from "./server-tools-builtin.js";
import { since } from "./time.js";

/** Which listings a server's capabilities call for. */
export interface CatalogKinds {
  resources: boolean;
  prompts: boolean;
}

/** The kinds a server's `initialize` capabilities declare. */
export function catalogKinds(capabilities: Record<string, unknown>): CatalogKinds {
  return { resources: capabilities.resources !== undefined, prompts: capabilities.prompts !== undefined };
}

/**
 * One connection's resources, templates and prompts: listed by each of its sessions (at discovery,
 * after a `list_changed`, after an expired `ttlMs`), each listing replacing the previous one whole,
 * and the built-in tools that read them (created once, so rediscovery keeps them as they are).
 */
export class ConnectionCatalog {
  #resources: McpResource[] = [];
  #templates: McpResourceTemplate[] = [];
  #prompts: McpPrompt[] = [];
  #rejected: { resources: RejectedEntry[]; prompts: RejectedEntry[] } = { resources: [], prompts: [] };
  /** The caching hints of the last listing of each kind (resources with their templates). */
  #hints: { resources: CacheHints | undefined; prompts: CacheHints | undefined } = {
    resources: undefined,
    prompts: undefined,
  };
  readonly #resourceTools: RegisteredTool[];
  readonly #promptTool: RegisteredTool;
  readonly #server: string;
  readonly #events: EventSink;

  constructor(port: Omit<ServerCatalogPort, "resources" | "templates" | "prompts">, events: EventSink) {
    this.#server = port.server;
    this.#events = events;
    const full: ServerCatalogPort = {
      ...port,
      resources: () => this.#resources,
      templates: () => this.#templates,
      prompts: () => this.#prompts,
    };
    this.#resourceTools = createResourceTools(full);
    this.#promptTool = createPromptTool(full);
  }

  /** The resources listed last. */
  get resources(): readonly McpResource[] {
    return this.#resources;
  }

  /** The resource templates listed last. */
  get templates(): readonly McpResourceTemplate[] {
    return this.#templates;
  }

  /** The prompts listed last. */
  get prompts(): readonly McpPrompt[] {
    return this.#prompts;
  }

  /** Entries the last listings left out, and why. */
  get rejected(): RejectedEntry[] {
    return [...this.#rejected.resources, ...this.#rejected.prompts];
  }

  /** The caching hints of the listings kept now, combined; undefined when none is kept. */
  get cacheHints(): CacheHints | undefined {
    return combineOptionalHints(this.#hints.resources, this.#hints.prompts);
  }

  /** The built-in tools for the kinds the server offers. */
  tools(kinds: CatalogKinds): RegisteredTool[] {
    return [...(kinds.resources ? this.#resourceTools : []), ...(kinds.prompts ? [this.#promptTool] : [])];
  }

  /**
   * Lists the given kinds again (throws `McpClientError` when a listing fails); the others are cleared
   * when not offered. A listing is kept only if `keeps()` still says so once it is in: a connection
   * closed (or a session let go) while it was answered keeps nothing of it.
   */
  async refresh(
    transport: McpTransport,
    context: McpRequestContext,
    kinds: Partial<CatalogKinds>,
    keeps: () => boolean,
  ): Promise<void> {
    if (kinds.resources === false) this.#clearResources();
    if (kinds.prompts === false) this.#clearPrompts();
    if (kinds.resources === true) {
      const started = performance.now();
      const resources = await listResources(this.#server, transport, context);
      const templates = await listResourceTemplates(this.#server, transport, context);
      if (!keeps()) return;
      this.#resources = resources.entries;
      this.#templates = templates.entries;
      this.#rejected.resources = [...resources.rejected, ...templates.rejected];
      this.#hints.resources = combineOptionalHints(resources.cache, templates.cache);
      emitEvent(this.#events, {
        type: "mcp_resources_listed",
        server: this.#server,
        resources: resources.entries.length,
        templates: templates.entries.length,
        rejected: this.#rejected.resources.length,
        durationMs: since(started),
      });
    }
    if (kinds.prompts === true) {
      const started = performance.now();
      const prompts = await listPrompts(this.#server, transport, context);
      if (!keeps()) return;
      this.#prompts = prompts.entries;
      this.#rejected.prompts = prompts.rejected;
      this.#hints.prompts = prompts.cache;
      emitEvent(this.#events, {
        type: "mcp_prompts_listed",
        server: this.#server,
        count: prompts.entries.length,
        rejected: prompts.rejected.length,
        durationMs: since(started),
      });
    }
  }

  /** Forgets every listing (the server closed). */
  clear(): void {
    this.#clearResources();
    this.#clearPrompts();
  }

  #clearResources(): void {
    this.#resources = [];
    this.#templates = [];
    this.#rejected.resources = [];
    this.#hints.resources = undefined;
  }

  #clearPrompts(): void {
    this.#prompts = [];
    this.#rejected.prompts = [];
    this.#hints.prompts = undefined;
  }
}
