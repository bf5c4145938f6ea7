import { createCoalescingRunner } from "./coalescing-runner.js";
import type { McpServerState } from "./connection-options.js";

const TOOLS_CHANGED = "notifications/tools/list_changed";
const RESOURCES_CHANGED = "notifications/resources/list_changed";
const PROMPTS_CHANGED = "notifications/prompts/list_changed";

/** What a {@link ListChangedRouter} acts on. */
export interface ListChangedTarget {
  state(): McpServerState;
  /** Lists the tools again and registers them (must not throw: it fails the connection instead). */
  rediscoverTools(): Promise<void>;
  /** The resources or prompts changed; `connecting` says the listing under way may be stale. */
  catalogChanged(kind: "resources" | "prompts", connecting: boolean): void;
}

/**
 * Routes a server's `list_changed` notifications: tools to one rediscovery at a time (a burst
 * coalesces into one more run), resources and prompts to the catalog. One that arrives while the
 * connection is still connecting may make the listing under way stale, so it is answered once ready.
 */
export class ListChangedRouter {
  readonly #target: ListChangedTarget;
  readonly #rediscovery = createCoalescingRunner(() => this.#target.rediscoverTools());
  #toolsChangedWhileConnecting = false;

  constructor(target: ListChangedTarget) {
    this.#target = target;
  }

  /** Handles one notification from the server; anything but a `list_changed` is ignored. */
  route(method: string): void {
    const state = this.#target.state();
    const connecting = state === "connecting";
    if (method === TOOLS_CHANGED) {
      if (connecting) this.#toolsChangedWhileConnecting = true;
      else if (state === "ready") this.#rediscovery.request();
      return;
    }
    const kind =
      method === RESOURCES_CHANGED ? "resources" : method === PROMPTS_CHANGED ? "prompts" : undefined;
    if (kind && (connecting || state === "ready")) this.#target.catalogChanged(kind, connecting);
  }

  /** The connection is ready: runs the rediscovery a `list_changed` during the listing asked for. */
  connected(): void {
    if (this.#toolsChangedWhileConnecting) this.#rediscovery.request();
  }

  /** Resolves once no rediscovery is running or queued. */
  settled(): Promise<void> {
    return this.#rediscovery.settled();
  }
}
