import { type AgentEventInput, type EventSink, emitEvent, NULL_EVENT_SINK } from "./events.js";
import type { GateVerdict, ToolGate } from "./gate.js";
import {
  type FailureDetails,
  failureObservation,
  isToolFailure,
  type Observation,
  type ObservationErrorCode,
  type ToolCallOutcome,
} from "./observation.js";
import type { RegisteredTool, ToolContext, ToolProgress } from "./tool.js";

/** A call as the model or a user makes it. */
export interface ToolCall {
  name: string;
  input: unknown;
  /** Identifies the call in events and approvals; generated when absent. */
  callId?: string;
}

/** Everything a call runs against. The gate is required: nothing executes without one. */
export interface ExecutionEnvironment {
  registry: { get(name: string): RegisteredTool | undefined };
  gate: ToolGate;
  runId: string;
  cwd: string;
  /** How long execution may take before it is aborted and a `timeout` observation returned. */
  timeoutMs?: number;
  /** The caller's cancellation: aborting it returns `cancelled` at once. */
  signal?: AbortSignal;
  events?: EventSink;
  onProgress?: (progress: ToolProgress, call: { callId: string; toolName: string }) => void;
}

// The longest delay setTimeout honours.
const MAX_TIMER_MS = 2_147_483_647;

/** Used when the environment sets no timeout. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/**
 * Runs one call through the whole chain: lookup, validation, the gate (authorization, approvals,
 * sandbox), then execution under a timeout. It never throws for a call's outcome: every ending is an
 * observation or a waiting outcome, and every step is an event.
 */
export async function executeToolCall(call: ToolCall, env: ExecutionEnvironment): Promise<ToolCallOutcome> {
  const events = env.events ?? NULL_EVENT_SINK;
  const ids = {
    runId: env.runId,
    callId: call.callId ?? `call_${globalThis.crypto.randomUUID()}`,
    toolName: call.name,
  };
  const started = performance.now();
  const tool = env.registry.get(call.name);
  emitEvent(events, { type: "tool_call_started", ...ids, ...callFacts(tool, call.input) });

  const outcome = await decideAndRun(call, tool, env, ids, events);
  const finished: AgentEventInput =
    outcome.type === "waiting"
      ? { type: "tool_call_finished", ...ids, ok: false, code: "waiting", durationMs: elapsed(started) }
      : outcome.ok
        ? { type: "tool_call_finished", ...ids, ok: true, durationMs: elapsed(started) }
        : {
            type: "tool_call_finished",
            ...ids,
            ok: false,
            code: outcome.error,
            durationMs: elapsed(started),
          };
  emitEvent(events, finished);
  return outcome;
}

type CallIds = { runId: string; callId: string; toolName: string };

async function decideAndRun(
  call: ToolCall,
  tool: RegisteredTool | undefined,
  env: ExecutionEnvironment,
  ids: CallIds,
  events: EventSink,
): Promise<ToolCallOutcome> {
  // Cancelled first: a caller that gave up (e.g. while a server was still connecting) gets
  // "cancelled", not a misleading "unknown_tool".
  if (env.signal?.aborted)
    return failureObservation(ids, "cancelled", "The call was cancelled before it started.");
  if (!tool) return failureObservation(ids, "unknown_tool", `No tool named "${call.name}" is registered.`);

  const prepared = tool.prepare(call.input);
  if (!prepared.ok) {
    return failureObservation(ids, "invalid_arguments", "The input does not match the tool's schema.", {
      issues: prepared.issues,
    });
  }

  // One controller per call: its signal reaches the gate (unless the caller has its own) and the tool.
  const controller = new AbortController();
  const verdict = await admit(tool, prepared.input, env, ids, env.signal ?? controller.signal);
  emitEvent(events, decisionEvent(ids, verdict));
  if (verdict.type === "deny") {
    return failureObservation(ids, "policy_denied", `The policy denied this call: ${verdict.reason}`, {
      reason: verdict.reason,
    });
  }
  if (verdict.type === "waiting") {
    return { type: "waiting", ...pick(ids), requestId: verdict.requestId, reason: "approval_required" };
  }
  if (env.signal?.aborted)
    return failureObservation(ids, "cancelled", "The call was cancelled before it started.");
  return runAdmitted(verdict.run, prepared.execute, env, ids, controller);
}

async function admit(
  tool: RegisteredTool,
  input: unknown,
  env: ExecutionEnvironment,
  ids: CallIds,
  signal: AbortSignal,
): Promise<GateVerdict> {
  try {
    return await env.gate.admit({
      tool,
      input,
      runId: ids.runId,
      callId: ids.callId,
      cwd: env.cwd,
      signal,
    });
  } catch (error) {
    // A gate that cannot decide fails closed.
    return { type: "deny", reason: `gate_failed: ${messageOf(error)}` };
  }
}

async function runAdmitted(
  run: (execute: () => Promise<unknown>) => Promise<unknown>,
  execute: (context: ToolContext) => Promise<unknown>,
  env: ExecutionEnvironment,
  ids: CallIds,
  controller: AbortController,
): Promise<Observation> {
  // setTimeout fires at once for delays past 2^31-1 ms (or Infinity): treat those as the longest wait.
  const timeoutMs = Math.min(env.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, MAX_TIMER_MS);
  let abortOutcome: Observation | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onCallerAbort: (() => void) | undefined;
  const aborted = new Promise<Observation>((resolve) => {
    const stop = (error: ObservationErrorCode, message: string) => {
      if (abortOutcome) return;
      abortOutcome = failureObservation(ids, error, message);
      controller.abort(new Error(message));
      resolve(abortOutcome);
    };
    timer = setTimeout(() => stop("timeout", `The tool did not finish within ${timeoutMs} ms.`), timeoutMs);
    onCallerAbort = () => stop("cancelled", "The call was cancelled.");
    env.signal?.addEventListener("abort", onCallerAbort, { once: true });
  });

  const context: ToolContext = {
    signal: controller.signal,
    callId: ids.callId,
    runId: ids.runId,
    cwd: env.cwd,
    reportProgress: (progress) => {
      if (!controller.signal.aborted) env.onProgress?.(progress, pick(ids));
    },
    progressListened: env.onProgress !== undefined,
  };
  const execution = Promise.resolve()
    .then(() => run(() => execute(context)))
    .then(
      (value): Observation => toObservation(ids, value),
      (error: unknown): Observation =>
        failureObservation(ids, "tool_error", `The tool failed: ${messageOf(error)}`),
    );
  try {
    return await Promise.race([execution, aborted]);
  } finally {
    clearTimeout(timer);
    if (onCallerAbort) env.signal?.removeEventListener("abort", onCallerAbort);
  }
}

function toObservation(ids: CallIds, value: unknown): Observation {
  if (isToolFailure(value)) {
    const { error, message, ...details } = value;
    return failureObservation(ids, error, message, details as FailureDetails);
  }
  return { type: "observation", ok: true, callId: ids.callId, toolName: ids.toolName, output: value };
}

function decisionEvent(ids: CallIds, verdict: GateVerdict): AgentEventInput {
  switch (verdict.type) {
    case "allow":
      return {
        type: "tool_call_decided",
        ...ids,
        decision: "allow",
        via: verdict.via,
        isolation: verdict.isolation,
      };
    case "deny":
      return { type: "tool_call_decided", ...ids, decision: "deny", reason: verdict.reason };
    case "waiting":
      return { type: "tool_call_decided", ...ids, decision: "ask", requestId: verdict.requestId };
  }
}

function callFacts(
  tool: RegisteredTool | undefined,
  input: unknown,
): { effect?: RegisteredTool["effect"]; inputBytes?: number } {
  const facts: { effect?: RegisteredTool["effect"]; inputBytes?: number } = {};
  if (tool) facts.effect = tool.effect;
  try {
    const text = JSON.stringify(input);
    if (text !== undefined) facts.inputBytes = Buffer.byteLength(text);
  } catch {
    // An input that cannot be serialized is reported by validation, not here.
  }
  return facts;
}

function pick(ids: CallIds): { callId: string; toolName: string } {
  return { callId: ids.callId, toolName: ids.toolName };
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
