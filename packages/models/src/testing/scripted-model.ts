import type { ModelClient, ModelRequest, ModelResult, ModelTurn } from "../model-client.js";

/** One scripted answer: a fixed result, or a function of the request (to assert on what the model saw). */
export type ScriptedStep = ModelResult | ((request: ModelRequest) => ModelResult | Promise<ModelResult>);

/** A {@link ModelClient} that answers from a script, for offline tests; it records every request. */
export interface ScriptedModel extends ModelClient {
  /** Copies of the requests received, in order (without their signal and callbacks). */
  readonly requests: ReadonlyArray<Omit<ModelRequest, "signal" | "onText">>;
  /** How many steps have not been used yet. */
  readonly remaining: number;
}

/**
 * Creates a model that returns `steps` in order. Text of a turn is also passed to `onText`, as a
 * streaming adapter would. Past the end of the script it fails with `model_invalid_response`, so a
 * loop that asks once too often shows up in the test instead of hanging.
 */
export function createScriptedModel(steps: readonly ScriptedStep[], model = "scripted"): ScriptedModel {
  const queue = [...steps];
  const requests: Array<Omit<ModelRequest, "signal" | "onText">> = [];
  return {
    provider: "scripted",
    model,
    requests,
    get remaining() {
      return queue.length;
    },
    async createTurn(request) {
      const { signal, onText, ...seen } = request;
      requests.push(structuredClone(seen));
      if (signal.aborted) return { ok: false, code: "model_cancelled", message: "the request was cancelled" };
      const step = queue.shift();
      if (step === undefined) {
        return { ok: false, code: "model_invalid_response", message: "the scripted model has no more steps" };
      }
      const result = typeof step === "function" ? await step(request) : step;
      if (result.ok && result.text !== null) onText?.(result.text);
      return result;
    },
  };
}

/** A turn that ends with text. */
export function textTurn(text: string): ModelTurn {
  return {
    ok: true,
    text,
    toolCalls: [],
    stopReason: "end_turn",
    usage: { inputTokens: 0, outputTokens: 0 },
  };
}

/** A turn that calls tools; `input` objects are serialized as the model would send them. */
export function toolCallTurn(
  calls: ReadonlyArray<
    { id: string; name: string; input: unknown } | { id: string; name: string; raw: string }
  >,
  text: string | null = null,
): ModelTurn {
  return {
    ok: true,
    text,
    toolCalls: calls.map((call) => ({
      id: call.id,
      name: call.name,
      arguments: "raw" in call ? call.raw : JSON.stringify(call.input),
    })),
    stopReason: "tool_use",
    usage: { inputTokens: 0, outputTokens: 0 },
  };
}
