/**
 * One model turn of a run: the request built from the run as it stands and the tools offered now,
 * timed and announced (`onModelRequest`, a `model_request_finished` event) only when someone
 * listens, so an unobserved run makes no clock read and no event for it.
 */
import type { ModelRequest, ModelResult } from "@agent/models";
import { type AgentEventInput, emitEvent } from "@agent/tools";
import type { AgentEnvironment } from "./agent-environment.js";
import type { OfferedTools } from "./offered-tools.js";
import type { RunState } from "./run-state.js";

/** Asks the model for the run's next turn, with `offered` as its tools; never throws for a model failure (it is a result). */
export function requestModelTurn(
  env: AgentEnvironment,
  state: RunState,
  offered: OfferedTools,
  signal: AbortSignal,
): Promise<ModelResult> {
  const { model, onText, onModelRequest, maxOutputTokens, events } = env;
  // Members set one by one rather than spread from conditional objects: no object made to be thrown away.
  const request: ModelRequest = {
    messages: state.messages,
    tools: offered.definitions,
    signal,
  };
  if (state.system !== null) request.system = state.system;
  if (maxOutputTokens !== undefined) request.maxOutputTokens = maxOutputTokens;
  if (onText) request.onText = onText;
  if (!onModelRequest && !events) return model.createTurn(request);
  return observedTurn(env, state.runId, request, state.turns + 1);
}

async function observedTurn(
  env: AgentEnvironment,
  runId: string,
  request: ModelRequest,
  turn: number,
): Promise<ModelResult> {
  const { model, onModelRequest, events } = env;
  onModelRequest?.("started", turn);
  const started = performance.now();
  let result: ModelResult;
  try {
    result = await model.createTurn(request);
  } finally {
    onModelRequest?.("finished", turn);
  }
  if (events) emitEvent(events, modelRequestEvent(runId, model, turn, started, result));
  return result;
}

/** Durations, token counts and codes only: never the prompt or the completion. */
function modelRequestEvent(
  runId: string,
  model: AgentEnvironment["model"],
  turn: number,
  started: number,
  result: ModelResult,
): AgentEventInput {
  const durationMs = Math.round((performance.now() - started) * 1000) / 1000;
  const facts = { runId, provider: model.provider, model: model.model, turn, durationMs };
  return result.ok
    ? {
        type: "model_request_finished",
        ...facts,
        ok: true,
        stopReason: result.stopReason,
        inputTokens: result.usage.inputTokens,
        outputTokens: result.usage.outputTokens,
        toolCalls: result.toolCalls.length,
      }
    : {
        type: "model_request_finished",
        ...facts,
        ok: false,
        code: result.code,
        ...(result.status === undefined ? {} : { status: result.status }),
        inputTokens: 0,
        outputTokens: 0,
        toolCalls: 0,
      };
}
