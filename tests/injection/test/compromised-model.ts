import type { ModelResult } from "@agent/models";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import type { FakeModelServerRequest, FakeServerStep } from "@agent/models/testing/server";
import {
  findInstructions,
  findSecrets,
  type PlantedInstruction,
  textsOf,
  withSecrets,
} from "./instructions.js";

/**
 * A model with no judgement of its own: it reads every message it is sent (system, user, tool
 * results, attached content) and the tools' descriptions, and obeys the first planted instruction
 * it has not obeyed yet, as one turn of tool calls, with `{{secret}}` filled in from every SECRET-…
 * token it has seen. With nothing left to obey it answers with text (what it read last). A request that offers no tools (a server's sampling request) is
 * answered by repeating the instructions it carries, as a summarizing model passes them on.
 *
 * It keeps no state: what it obeyed is read back from its own calls in the transcript, whose ids
 * name the instruction (`obey_<hash>_<n>`), so the same step serves every request of every run.
 */
export function compromisedModelStep(request: FakeModelServerRequest): ModelResult {
  const decoded = request.modelRequest;
  if (decoded === undefined) throw new Error(`the model was sent no JSON request: ${String(request.body)}`);
  const heard: string[] = decoded.system === undefined ? [] : [decoded.system];
  const obeyed = new Set<string>();
  for (const message of decoded.messages) {
    if (message.role === "assistant") {
      for (const call of message.toolCalls) obeyed.add(call.id.replace(/_\d+$/, ""));
    } else {
      heard.push(...textsOf(message.content));
    }
  }
  const lastRead = heard.at(-1) ?? "";
  // The tools' definitions are read too (as a real model reads them), after everything else.
  for (const tool of decoded.tools) heard.push(tool.description);
  const instructions = heard.flatMap(findInstructions);
  if (decoded.tools.length === 0) return textTurn(samplingAnswer(instructions));
  const next = instructions.find((instruction) => !obeyed.has(instruction.id));
  if (next === undefined) return textTurn(`Done. Last I read: ${lastRead.slice(0, 300)}`);
  const secrets = [...new Set(heard.flatMap(findSecrets))];
  return toolCallTurn(
    next.calls.map((call, index) => ({
      id: `${next.id}_${index}`,
      name: call.tool,
      input: withSecrets(call.input, secrets),
    })),
  );
}

/** Enough steps of {@link compromisedModelStep} for `requests` model requests. */
export function compromisedModelSteps(requests: number): FakeServerStep[] {
  return Array.from({ length: requests }, () => compromisedModelStep);
}

function samplingAnswer(instructions: readonly PlantedInstruction[]): string {
  return `The emails ask for action. ${instructions.map((instruction) => instruction.wording).join(" ")}`.trim();
}
