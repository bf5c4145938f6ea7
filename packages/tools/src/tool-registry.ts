import { CallIds } from "./call-ids.js";
import { DeadlineQueue } from "./deadline-queue.js";
import { TOOLS_ERROR_CODES, ToolsError } from "./errors.js";
import type { RegisteredTool } from "./tool.js";

/** What replacing a group changed, by tool name. */
export interface GroupChange {
  added: string[];
  removed: string[];
  /** Kept names whose definition fingerprint changed. */
  changed: string[];
}

/**
 * Holds the tools a run may call, by unique name; a name once taken cannot be silently replaced.
 * Every call is made against a registry, which outlives the calls: it also makes the ids of calls
 * that come without one and holds the time limits of the calls running.
 */
export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  readonly #callIds = new CallIds();
  /** The time limits of the calls made against this registry that are running, under one timer. */
  readonly deadlines = new DeadlineQueue();

  /** A new call id, `call_<uuid v4>`, for a call made against this registry without one. */
  nextCallId(): string {
    return this.#callIds.next();
  }

  /** Adds a tool; throws `duplicate_tool` (leaving the registry unchanged) if its name is taken. */
  register(tool: RegisteredTool): void {
    this.registerAll([tool]);
  }

  /** Adds several tools at once, or none of them if any name is taken or repeated. */
  registerAll(tools: readonly RegisteredTool[]): void {
    assertUniqueNames(tools, (name) => this.#tools.has(name));
    for (const tool of tools) this.#tools.set(tool.name, tool);
  }

  /** The tool registered under `name`, if any. */
  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** Registered names, in registration order. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Registered tools, in registration order. */
  list(): RegisteredTool[] {
    return [...this.#tools.values()];
  }

  /** The tools of one group, in registration order. */
  listGroup(group: string): RegisteredTool[] {
    return this.list().filter((tool) => tool.group === group);
  }

  /**
   * Atomically replaces every tool of `group` with `tools`. Each new tool must belong to `group`, and
   * no name may collide with a tool outside it; otherwise this throws and changes nothing.
   */
  replaceGroup(group: string, tools: readonly RegisteredTool[]): GroupChange {
    const foreign = tools.find((tool) => tool.group !== group);
    if (foreign) {
      throw new ToolsError(
        TOOLS_ERROR_CODES.groupViolation,
        `Tool "${foreign.name}" belongs to group ${JSON.stringify(foreign.group ?? null)}, not "${group}".`,
      );
    }
    assertUniqueNames(tools, (name) => {
      const existing = this.#tools.get(name);
      return existing !== undefined && existing.group !== group;
    });
    const previous = new Map(this.listGroup(group).map((tool) => [tool.name, tool]));
    const next = new Map(tools.map((tool) => [tool.name, tool]));
    // Computed before anything changes: reading a fingerprint may throw (see defineTool), and then
    // the registry must stay as it was.
    const change: GroupChange = {
      added: [...next.keys()].filter((name) => !previous.has(name)),
      removed: [...previous.keys()].filter((name) => !next.has(name)),
      changed: [...next.values()]
        .filter((tool) => {
          const old = previous.get(tool.name);
          // The same object is the same definition; comparing would only compute fingerprints.
          return old !== undefined && old !== tool && old.fingerprint !== tool.fingerprint;
        })
        .map((tool) => tool.name),
    };
    for (const name of previous.keys()) this.#tools.delete(name);
    for (const tool of tools) this.#tools.set(tool.name, tool);
    return change;
  }

  /** Removes every tool of `group` and returns their names. */
  removeGroup(group: string): string[] {
    return this.replaceGroup(group, []).removed;
  }
}

function assertUniqueNames(tools: readonly RegisteredTool[], isTaken: (name: string) => boolean): void {
  const seen = new Set<string>();
  for (const { name } of tools) {
    if (seen.has(name)) {
      throw new ToolsError(
        TOOLS_ERROR_CODES.duplicateTool,
        `Tool "${name}" appears twice in one registration.`,
      );
    }
    if (isTaken(name)) {
      throw new ToolsError(
        TOOLS_ERROR_CODES.duplicateTool,
        `Tool "${name}" is already registered; a tool is never replaced by another of the same name.`,
      );
    }
    seen.add(name);
  }
}
