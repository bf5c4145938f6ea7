/**
 * The two records a governed call writes (event vocabulary version 2): what opens its trail (the
 * decision, with the tool's effect and the input's size) and its outcome.
 */
import type { AgentEventInput, CallRequestRecord } from "./agent-event.js";
import { copyFlowSource } from "./flow.js";
import type { GateVerdict } from "./gate.js";
import type { ToolCallOutcome } from "./observation.js";
import type { CallIdentity } from "./running-call.js";
import type { RegisteredTool } from "./tool.js";
import { utf8Length } from "./utf8.js";

// The events below are built field by field, in the order the audit trail has always had: V8's
// object spread is slow for these shapes (see emitEvent's stamping).

/** What opens a call's trail: the tool's effect and the input's size (never the input). */
export interface StartFields {
  effect?: RegisteredTool["effect"];
  inputBytes?: number;
}

export function startFields(tool: RegisteredTool | undefined, input: unknown): StartFields {
  const event: StartFields = {};
  if (tool) event.effect = tool.effect;
  try {
    const text = JSON.stringify(input);
    if (text !== undefined) event.inputBytes = utf8Length(text);
  } catch {
    // An input that cannot be serialized is reported by validation, not here.
  }
  return event;
}

export function decisionEvent(
  ids: CallIdentity,
  verdict: GateVerdict,
  start: StartFields | undefined,
): AgentEventInput {
  return Object.assign(verdictFields(ids, verdict), start);
}

function verdictFields(ids: CallIdentity, verdict: GateVerdict): AgentEventInput {
  const { runId, callId, toolName } = ids;
  switch (verdict.type) {
    case "allow":
      return {
        type: "tool_call_decided",
        runId,
        callId,
        toolName,
        decision: "allow",
        via: verdict.via,
        isolation: verdict.isolation,
      };
    case "deny":
      return { type: "tool_call_decided", runId, callId, toolName, decision: "deny", reason: verdict.reason };
    case "waiting": {
      const event: AgentEventInput & { type: "tool_call_decided" } = {
        type: "tool_call_decided",
        runId,
        callId,
        toolName,
        decision: "ask",
        requestId: verdict.requestId,
      };
      if (verdict.reason) event.reason = verdict.reason;
      if (verdict.taint && verdict.taint.length > 0) event.taint = verdict.taint.map(copyFlowSource);
      return event;
    }
  }
}

export function finishedEvent(
  ids: CallIdentity,
  outcome: ToolCallOutcome,
  durationMs: number,
  request: CallRequestRecord | undefined,
): AgentEventInput & { type: "tool_call_finished" } {
  const { runId, callId, toolName } = ids;
  const event: AgentEventInput & { type: "tool_call_finished" } =
    outcome.type === "waiting"
      ? { type: "tool_call_finished", runId, callId, toolName, ok: false, code: "waiting", durationMs }
      : outcome.ok
        ? { type: "tool_call_finished", runId, callId, toolName, ok: true, durationMs }
        : { type: "tool_call_finished", runId, callId, toolName, ok: false, code: outcome.error, durationMs };
  if (request) {
    event.server = request.server;
    event.request = request;
  }
  return event;
}
