/**
 * The gate's answer as `executeToolCall` takes it: a verdict settled at once or later, and every way
 * a gate or a decision write can fail. Whatever the gate answers, the call ends in an observation
 * (never a throw), a tool runs only after an allow was recorded, and the trail has all three steps.
 */
import { getEventListeners } from "node:events";
import {
  type AgentEvent,
  createMemoryEventSink,
  defineTool,
  type EventSink,
  type ExecutionEnvironment,
  executeToolCall,
  type GateVerdict,
  type ToolContext,
  type ToolGate,
  ToolRegistry,
} from "@agent/tools";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";

const ALLOW: GateVerdict = { type: "allow", via: "policy", isolation: "none", run: (execute) => execute() };

function setup(gate: ToolGate, execute: (context: ToolContext) => unknown = () => "ran") {
  const registry = new ToolRegistry();
  const spy = vi.fn((_input: unknown, context: ToolContext) => execute(context));
  registry.register(
    defineTool({ name: "act", description: "", schema: z.object({}), effect: "read", execute: spy }),
  );
  const events = createMemoryEventSink();
  const env: ExecutionEnvironment = { registry, gate, runId: "r", cwd: "/work", events, timeoutMs: 5_000 };
  return { env, spy, events };
}

const types = (events: readonly AgentEvent[]) => events.map((event) => event.type);

describe("a gate's answer that is not a verdict", () => {
  const answers: [string, () => unknown][] = [
    ["undefined", () => undefined],
    ["null", () => null],
    ["a promise of undefined", () => Promise.resolve(undefined)],
    ["a string", () => "allow"],
    ["an unknown type", () => ({ type: "Allow", run: (execute: () => unknown) => execute() })],
    ["an allow without a runner", () => ({ type: "allow", via: "policy", isolation: "none" })],
    ["a hold without a request id", () => ({ type: "waiting" })],
  ];
  for (const [name, admit] of answers) {
    it(`fails closed, recorded as a deny, for ${name}`, async () => {
      const { env, spy, events } = setup({ admit: admit as ToolGate["admit"] });
      const outcome = await executeToolCall({ name: "act", input: {} }, env);
      expect(outcome).toMatchObject({ ok: false, error: "policy_denied" });
      expect((outcome as { reason?: string }).reason).toMatch(/^gate_failed: /);
      expect(spy).not.toHaveBeenCalled();
      expect(types(events.events)).toEqual(["tool_call_decided", "tool_call_finished"]);
      expect(events.ofType("tool_call_decided")[0]).toMatchObject({ decision: "deny" });
    });
  }

  it("still fails closed for a gate that throws at once, or a then that throws", async () => {
    for (const admit of [
      () => {
        throw new Error("");
      },
      () => ({
        // biome-ignore lint/suspicious/noThenProperty: a thenable whose then cannot even be read
        get then() {
          throw new Error("no then");
        },
      }),
    ]) {
      const { env, spy } = setup({ admit: admit as unknown as ToolGate["admit"] });
      expect(await executeToolCall({ name: "act", input: {} }, env)).toMatchObject({
        error: "policy_denied",
      });
      expect(spy).not.toHaveBeenCalled();
    }
  });

  it("uses a thenable's verdict", async () => {
    const { env, spy } = setup({
      // biome-ignore lint/suspicious/noThenProperty: a gate answering with a thenable, not a promise
      admit: () => ({ then: (resolve: (v: GateVerdict) => void) => resolve(ALLOW) }) as never,
    });
    expect(await executeToolCall({ name: "act", input: {} }, env)).toMatchObject({ ok: true, output: "ran" });
    expect(spy).toHaveBeenCalledOnce();
  });
});

describe("a decision that cannot be recorded", () => {
  function failingSink(emitDecision: () => Promise<void>) {
    const records: AgentEvent[] = [];
    const events: EventSink = { emit: (event) => void records.push(event), emitDecision };
    return { records, events };
  }

  it("refuses the call when the write rejects with an empty message", async () => {
    const { env, spy } = setup({ admit: async () => ALLOW });
    env.events = failingSink(() => Promise.reject(new Error(""))).events;
    const outcome = await executeToolCall({ name: "act", input: {} }, env);
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied", reason: "audit_failed: " });
    expect(spy).not.toHaveBeenCalled();
  });

  it("refuses the call, and ends it in an observation, when emitDecision throws at once", async () => {
    const { env, spy } = setup({ admit: async () => ALLOW });
    const { records, events } = failingSink(() => {
      throw new Error("disk full");
    });
    env.events = events;
    const outcome = await executeToolCall({ name: "act", input: {} }, env);
    expect(outcome).toMatchObject({ ok: false, error: "policy_denied", reason: "audit_failed: disk full" });
    expect(spy).not.toHaveBeenCalled();
    expect(types(records)).toEqual(["tool_call_finished"]);
  });
});

describe("a verdict settled at once", () => {
  it("runs the tool only once its decision is written, even when the gate answered at once", async () => {
    const log: string[] = [];
    let written: () => void = () => {};
    const { env } = setup({ admit: async () => ALLOW }, () => void log.push("ran"));
    env.events = {
      emit: (event) => void log.push(event.type),
      emitDecision: () =>
        new Promise<void>((resolve) => {
          written = () => {
            log.push("written");
            resolve();
          };
        }),
    };
    const pending = executeToolCall({ name: "act", input: {} }, env);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(log).toEqual([]);
    written();
    await pending;
    expect(log).toEqual(["written", "ran", "tool_call_finished"]);
  });

  it("returns cancelled for a tool that aborts its caller's signal while it starts", async () => {
    const caller = new AbortController();
    const { env } = setup({ admit: async () => ALLOW }, () => {
      caller.abort();
      return new Promise(() => {});
    });
    env.signal = caller.signal;
    expect(await executeToolCall({ name: "act", input: {} }, env)).toMatchObject({ error: "cancelled" });
  });

  it("leaves no listener on a signal shared by many calls, finished or aborted", async () => {
    const caller = new AbortController();
    const { env } = setup({ admit: async () => ALLOW });
    env.signal = caller.signal;
    await Promise.all(Array.from({ length: 5 }, () => executeToolCall({ name: "act", input: {} }, env)));
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    const hanging = setup({ admit: async () => ALLOW }, () => new Promise(() => {})).env;
    hanging.signal = caller.signal;
    const pending = Promise.all(
      Array.from({ length: 5 }, () => executeToolCall({ name: "act", input: {} }, hanging)),
    );
    caller.abort();
    expect(
      (await pending).map((outcome) => outcome.type === "observation" && !outcome.ok && outcome.error),
    ).toEqual(Array.from({ length: 5 }, () => "cancelled"));
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });
});
