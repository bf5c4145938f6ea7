import type { ModelToolDefinition } from "@agent/models";
import { digestJson, type RegisteredTool } from "@agent/tools";

/** The tools a run may call: a `ToolRegistry` fits. Read at every model turn, so changes show at once. */
export interface ToolSource {
  get(name: string): RegisteredTool | undefined;
  list(): RegisteredTool[];
}

/** The tools of one model turn, as the model is told about them, and what identifies that set. */
export interface OfferedTools {
  definitions: ModelToolDefinition[];
  /** sha256 over the offered tools' names and definition fingerprints, in order. */
  fingerprint: string;
}

/**
 * Computes each turn's offered tools. `isOffered` is asked at every turn (what it answers may change
 * during a run: a reloaded policy); the definitions and their fingerprint are reused while the same
 * tool objects are offered in the same order (a registry replaces objects when a definition
 * changes), so a long run does not hash its tool set on every turn.
 */
export class OfferedToolsCache {
  readonly #isOffered: (tool: RegisteredTool) => boolean;
  #tools: RegisteredTool[] = [];
  #offered: OfferedTools | undefined;

  constructor(isOffered: (tool: RegisteredTool) => boolean) {
    this.#isOffered = isOffered;
  }

  /** The offered tools among `tools`. */
  offer(tools: RegisteredTool[]): OfferedTools {
    const offered = tools.filter((tool) => this.#isOffered(tool));
    if (this.#offered && sameTools(offered, this.#tools)) return this.#offered;
    this.#tools = offered;
    this.#offered = {
      definitions: offered.map(toModelTool),
      fingerprint: digestJson(offered.map((tool) => [tool.name, tool.fingerprint])),
    };
    return this.#offered;
  }
}

/** A registered tool as a model API takes it: the strict variant where the tool has one. */
export function toModelTool(tool: RegisteredTool): ModelToolDefinition {
  const strict = tool.strictParameters;
  return strict.compatible
    ? { name: tool.name, description: tool.description, parameters: strict.parameters, strict: true }
    : { name: tool.name, description: tool.description, parameters: tool.parameters };
}

function sameTools(a: readonly RegisteredTool[], b: readonly RegisteredTool[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1) if (a[index] !== b[index]) return false;
  return true;
}
