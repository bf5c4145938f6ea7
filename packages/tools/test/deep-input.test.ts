import {
  canonicalJson,
  createMemoryEventSink,
  defineTool,
  exceedsJsonDepth,
  executeToolCall,
  MAX_INPUT_DEPTH,
  serializeForAudit,
  ToolRegistry,
} from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { boundForAudit } from "../src/audit-bounds.js";
import { fixedGate } from "./helpers.js";

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { a: value };
  return value;
}

describe("deeply nested input", () => {
  it("measures depth without recursion", () => {
    expect(exceedsJsonDepth(nested(MAX_INPUT_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_INPUT_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(nested(200_000))).toBe(true);
    expect(exceedsJsonDepth("text")).toBe(false);
  });

  it("is a structured invalid_arguments from the executor, never a stack overflow", async () => {
    const registry = new ToolRegistry();
    let ran = false;
    const schemas = [z.object({ a: z.unknown() }), z.object({ a: z.array(z.any()) }), z.looseObject({})];
    registry.registerAll(
      schemas.map((schema, index) =>
        defineTool({
          name: `t${index}`,
          description: "Takes anything.",
          schema,
          effect: "read",
          execute: async () => {
            ran = true;
            return "ran";
          },
        }),
      ),
    );
    const gate = fixedGate("allow");
    for (const name of registry.names()) {
      const outcome = await executeToolCall(
        { name, input: { a: nested(20_000) } },
        { registry, gate, runId: "r", cwd: "/", events: createMemoryEventSink() },
      );
      expect(outcome).toMatchObject({
        type: "observation",
        ok: false,
        error: "invalid_arguments",
        issues: [{ path: [], message: `the input is nested more than ${MAX_INPUT_DEPTH} levels deep` }],
      });
    }
    expect(ran).toBe(false);
  });

  it("canonical JSON and the audit bounds refuse or cut it instead of overflowing", () => {
    expect(() => canonicalJson(nested(20_000))).toThrow(/nested more than 512 levels deep/);
    const event = {
      type: "mcp_server_failed",
      at: "now",
      server: "s",
      code: "x",
      message: "m",
      data: nested(20_000),
    };
    expect(() => boundForAudit(event as never)).not.toThrow();
    expect(serializeForAudit(event as never)).toContain('"omitted":"nested value"');
  });
});
