import { startRun } from "@agent/loop";
import type { ModelRequest } from "@agent/models";
import { createScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import { defineTool, type RegisteredTool, ToolRegistry } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { OfferedToolsCache } from "../src/offered-tools.js";
import { createHarness } from "./helpers.js";

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

describe("the tools a run offers the model", () => {
  const offeredNames = (request: Omit<ModelRequest, "signal" | "onText"> | undefined) =>
    (request?.tools ?? []).map((tool) => tool.name);

  it("follow a changed isOffered from the next turn of the same run on, both ways", async () => {
    const harness = createHarness();
    // Stands for a policy reloaded while the run goes on: what it denies now is not offered now.
    const denied = new Set(["rm"]);
    const isOffered = (tool: RegisteredTool) => !denied.has(tool.name);
    const echo = (id: string) => toolCallTurn([{ id, name: "echo", input: { text: id } }]);
    const model = createScriptedModel([
      () => {
        denied.add("big");
        return echo("tc_1");
      },
      () => {
        denied.delete("big");
        denied.delete("rm");
        return echo("tc_2");
      },
      textTurn("done"),
    ]);
    const result = await startRun(harness.env(model, { isOffered }), { prompt: "echo twice" });
    expect(result.status).toBe("completed");
    expect(offeredNames(model.requests[0])).toEqual(["echo", "write_note", "big", "slow"]);
    expect(offeredNames(model.requests[1])).toEqual(["echo", "write_note", "slow"]);
    expect(offeredNames(model.requests[2])).toEqual(["echo", "write_note", "rm", "big", "slow"]);
  });
});
