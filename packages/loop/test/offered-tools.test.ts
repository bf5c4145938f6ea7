import { defineTool, type RegisteredTool, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OfferedToolsCache } from "../src/offered-tools.js";

function registryOf(...names: string[]): ToolRegistry {
  const registry = new ToolRegistry();
  for (const name of names) {
    registry.register(
      defineTool({
        name,
        description: `${name} it`,
        schema: z.object({}),
        effect: "read",
        execute: () => name,
      }),
    );
  }
  return registry;
}

const namesOf = (cache: OfferedToolsCache, registry: ToolRegistry) =>
  cache.offer(registry.list()).definitions.map((definition) => definition.name);

describe("OfferedToolsCache", () => {
  it("asks isOffered at every turn: a tool it stops offering (a reloaded policy) is gone at the next", () => {
    const registry = registryOf("read", "send");
    const denied = new Set<string>();
    const cache = new OfferedToolsCache((tool: RegisteredTool) => !denied.has(tool.name));
    const first = cache.offer(registry.list());
    expect(namesOf(cache, registry)).toEqual(["read", "send"]);

    denied.add("send");
    const second = cache.offer(registry.list());
    expect(second.definitions.map((definition) => definition.name)).toEqual(["read"]);
    expect(second.fingerprint).not.toBe(first.fingerprint);

    denied.clear();
    expect(cache.offer(registry.list()).fingerprint).toBe(first.fingerprint);
  });

  it("reuses the last answer while the same tools are offered, and not once a definition changes", () => {
    const tools = registryOf("read", "send").list();
    const cache = new OfferedToolsCache(() => true);
    const first = cache.offer(tools);
    expect(cache.offer([...tools])).toBe(first);

    // A registry replaces a tool's object when its definition changes.
    const [changedSend] = registryOf("send")
      .list()
      .map((tool) => ({ ...tool, description: "now different" }));
    const changed = cache.offer([tools[0] as RegisteredTool, changedSend as RegisteredTool]);
    expect(changed).not.toBe(first);
    expect(changed.definitions.map((definition) => definition.description)).toEqual([
      "read it",
      "now different",
    ]);
  });
});
