import type { NetworkPolicy, Sandbox } from "@agent/policy";
import { defineTool, type JsonValue, type RegisteredTool, type ToolEffect } from "@agent/tools";
import { z } from "zod";

/** A tool that counts its executions, for asserting that nothing ran. */
export interface CountingTool {
  tool: RegisteredTool<{ q: string; limit?: number | undefined }>;
  executions: { q: string; limit?: number | undefined }[];
}

export function countingTool(
  name: string,
  effect: ToolEffect,
  extra: { annotations?: Record<string, JsonValue>; description?: string } = {},
): CountingTool {
  const executions: CountingTool["executions"] = [];
  const tool = defineTool({
    name,
    description: extra.description ?? `The ${name} tool.`,
    schema: z.object({ q: z.string(), limit: z.number().int().optional() }),
    effect,
    ...(extra.annotations ? { annotations: extra.annotations } : {}),
    execute: (input) => {
      executions.push(input);
      return { results: [input.q] };
    },
  });
  return { tool, executions };
}

/** Deterministic ids: `apr_1`, `apr_2`, ... */
export function sequentialIds(prefix = "apr_"): () => string {
  let next = 0;
  return () => {
    next += 1;
    return `${prefix}${next}`;
  };
}

export const FIXED_NOW = (): Date => new Date("2030-01-02T03:04:05.000Z");

/** A sandbox that runs each call directly and records the network policy it was handed. */
export function recordingSandbox(isolates: boolean): Sandbox & { runs: { network: NetworkPolicy }[] } {
  const runs: { network: NetworkPolicy }[] = [];
  return {
    name: isolates ? "test-jail" : "test-passthrough",
    isolates,
    runs,
    async run(execute, options) {
      runs.push({ network: options.network });
      return execute();
    },
  };
}
