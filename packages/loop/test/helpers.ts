import type { AgentEnvironment, RunChange, RunStore } from "@agent/loop";
import { InMemoryRunStore } from "@agent/loop";
import type { ModelClient } from "@agent/models";
import { createScriptedModel, type ScriptedModel, textTurn, toolCallTurn } from "@agent/models/testing";
import {
  createPolicyGate,
  definePolicy,
  InMemoryApprovalStore,
  type PolicyConfig,
  resolvePolicyDecision,
} from "@agent/policy";
import { createMemoryEventSink, defineTool, type MemoryEventSink, ToolRegistry } from "@agent/tools";
import { z } from "zod";

/** A registry, a real policy gate over an in-memory approval store, a run store and an event sink. */
export interface Harness {
  tools: ToolRegistry;
  approvals: InMemoryApprovalStore;
  store: InMemoryRunStore;
  events: MemoryEventSink;
  /** Inputs each tool executed with, by tool name. */
  executed: Record<string, unknown[]>;
  env(model: ModelClient, extra?: Partial<AgentEnvironment>): AgentEnvironment;
}

/** Tools: `echo` (read), `write_note` (write: asks), `rm` (denied), `big` (read, 50,000 chars), `slow` (read, waits for its signal). */
export function createHarness(
  policyConfig: PolicyConfig = { rules: [{ tool: "rm", decision: "deny" }] },
): Harness {
  const executed: Record<string, unknown[]> = {};
  const record = (name: string, input: unknown) => {
    executed[name] ??= [];
    executed[name].push(input);
  };
  const tools = new ToolRegistry();
  tools.registerAll([
    defineTool({
      name: "echo",
      description: "Echoes its text.",
      effect: "read",
      schema: z.object({ text: z.string() }),
      execute: (input) => {
        record("echo", input);
        return input.text;
      },
    }),
    defineTool({
      name: "write_note",
      description: "Writes a note.",
      effect: "write",
      group: "notes",
      schema: z.object({ text: z.string() }),
      execute: (input) => {
        record("write_note", input);
        return `wrote ${input.text}`;
      },
    }),
    defineTool({
      name: "rm",
      description: "Removes everything.",
      effect: "write",
      schema: z.object({}),
      execute: (input) => {
        record("rm", input);
        return "gone";
      },
    }),
    defineTool({
      name: "big",
      description: "Returns a lot.",
      effect: "read",
      schema: z.object({}),
      execute: (input) => {
        record("big", input);
        return "b".repeat(50_000);
      },
    }),
    defineTool({
      name: "slow",
      description: "Waits until cancelled.",
      effect: "read",
      schema: z.object({}),
      execute: (input, context) => {
        record("slow", input);
        return new Promise((_, reject) => {
          context.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        });
      },
    }),
  ]);
  const policy = definePolicy(policyConfig);
  const approvals = new InMemoryApprovalStore();
  const events = createMemoryEventSink();
  const gate = createPolicyGate({ policy, approvals, events });
  const store = new InMemoryRunStore();
  return {
    tools,
    approvals,
    store,
    events,
    executed,
    env: (model, extra = {}) => ({
      model,
      tools,
      gate,
      store,
      cwd: "/work/space",
      events,
      isOffered: (tool) => resolvePolicyDecision(policy, tool).decision !== "deny",
      ...extra,
    }),
  };
}

/**
 * The in-memory store behind a fault at the RunStore boundary: update number `from` (and, when
 * `until` is given, those up to it) throws as a database that went away does, before applying anything.
 */
export function failingUpdates(
  inner: InMemoryRunStore,
  from: number,
  until = Number.POSITIVE_INFINITY,
): RunStore {
  let updates = 0;
  return {
    createRun: (state) => inner.createRun(state),
    loadRun: (runId) => inner.loadRun(runId),
    listRuns: (options) => inner.listRuns(options),
    async updateRun(runId: string, expectedVersion: number, change: RunChange, now?: Date) {
      updates += 1;
      if (updates >= from && updates <= until) throw new Error("connection terminated unexpectedly");
      return inner.updateRun(runId, expectedVersion, change, now);
    },
  };
}

/** One call of a harness tool that takes `{ text }` (`echo`, `write_note`): `[call id, tool, text]`. */
export type TextCall = readonly [id: string, tool: string, text: string];

/** A model that asks for `calls` in one turn, then answers `reply` if one is given (else its script ends). */
export function textCallsThen(calls: readonly TextCall[], reply?: string): ScriptedModel {
  const turn = toolCallTurn(calls.map(([id, name, text]) => ({ id, name, input: { text } })));
  return createScriptedModel(reply === undefined ? [turn] : [turn, textTurn(reply)]);
}

/** A model that asks for one echo of "ping" (call id `tc_1`), then answers `reply`. */
export function echoPingThen(reply: string): ScriptedModel {
  return textCallsThen([["tc_1", "echo", "ping"]], reply);
}
