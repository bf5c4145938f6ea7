import {
  CallIds,
  createMemoryEventSink,
  defineTool,
  type ExecutionEnvironment,
  executeToolCall,
  ToolRegistry,
} from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { fixedGate } from "./helpers.js";

const UUID_V4 = /^call_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("CallIds", () => {
  it("makes call_<uuid v4> ids, all different, across many refills of its random bytes", () => {
    const ids = new CallIds();
    const made = Array.from({ length: 5000 }, () => ids.next());
    for (const id of made) expect(id).toMatch(UUID_V4);
    expect(new Set(made).size).toBe(made.length);
  });

  it("uses every hex digit in every random position (the bytes really are random)", () => {
    const ids = new CallIds();
    const seen = Array.from({ length: 41 }, () => new Set<string>());
    for (let index = 0; index < 2000; index += 1) {
      const id = ids.next();
      for (let position = 0; position < id.length; position += 1) seen[position]?.add(id[position] as string);
    }
    const sizes = seen.map((digits) => digits.size);
    const fixed = new Set([0, 1, 2, 3, 4, 13, 18, 19, 23, 28]);
    sizes.forEach((size, position) => {
      if (position === 24) expect(size).toBe(4);
      else expect(size).toBe(fixed.has(position) ? 1 : 16);
    });
  });
});

describe("the id of a call made without one", () => {
  const echo = defineTool({
    name: "echo",
    description: "",
    schema: z.object({ q: z.string() }),
    effect: "read",
    execute: ({ q }) => q,
  });

  async function idsOf(registry: ExecutionEnvironment["registry"]): Promise<string[]> {
    const events = createMemoryEventSink();
    const env: ExecutionEnvironment = { registry, gate: fixedGate("allow"), runId: "r", cwd: "/", events };
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () => executeToolCall({ name: "echo", input: { q: "x" } }, env)),
    );
    const ids = outcomes.map((outcome) => outcome.callId);
    // Both records of each call carry the id its outcome does.
    expect(events.events.map((event) => (event as { callId?: string }).callId).sort()).toEqual(
      [...ids, ...ids].sort(),
    );
    return ids;
  }

  it("comes from the registry, a call_<uuid v4>, different for every call", async () => {
    const registry = new ToolRegistry();
    registry.register(echo);
    const ids = await idsOf(registry);
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("is the registry's next id when the registry makes them", async () => {
    let made = 0;
    const lookup = {
      get: (name: string) => (name === "echo" ? echo : undefined),
      nextCallId: () => {
        made += 1;
        return `call_from_registry_${made}`;
      },
    };
    const ids = await idsOf(lookup);
    expect(ids.sort()).toEqual(
      Array.from({ length: 50 }, (_, index) => `call_from_registry_${index + 1}`).sort(),
    );
  });

  it("is a call_<uuid v4> too when the registry is only a lookup", async () => {
    const ids = await idsOf({ get: (name) => (name === "echo" ? echo : undefined) });
    for (const id of ids) expect(id).toMatch(UUID_V4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("differs between registries (each fills its own random bytes)", () => {
    const made = Array.from({ length: 20 }, () => new ToolRegistry().nextCallId());
    expect(new Set(made).size).toBe(made.length);
  });
});
