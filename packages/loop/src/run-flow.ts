import {
  type FlowSource,
  OBSERVATION_ERROR_CODES,
  type RegisteredTool,
  type ToolCallOutcome,
} from "@agent/tools";

/** One call of a turn as the flow tracker sees it, before it runs. */
export interface FlowCall {
  toolName: string;
  /** The registered tool of that name, if any. */
  tool: RegisteredTool | undefined;
  /** The parsed arguments; `undefined` when they are not JSON (such a call never runs). */
  input: unknown;
}

/**
 * Says where the content entering a run comes from, for the flow guard. `@agent/policy`'s
 * `createFlowTracker` implements it; without one, a run counts every `external` tool's results as
 * untrusted ({@link EXTERNAL_TOOLS_UNTRUSTED}).
 */
export interface RunFlow {
  /**
   * The untrusted sources each call of a turn would bring into the run (one list per call, in
   * order), known before any of them runs: the turn's calls are judged with all of them, so a call
   * made beside an untrusted read is judged as tainted as one made after it.
   */
  sourcesOf(
    calls: readonly FlowCall[],
    turn: number,
  ): readonly (readonly FlowSource[])[] | Promise<readonly (readonly FlowSource[])[]>;
  /**
   * Untrusted content that reached the run another way since the last look (a server's sampling
   * request the run's model answered, an elicitation shown to its operator); each is handed out once.
   */
  takeArrivals?(turn: number): readonly FlowSource[];
}

/** The flow of a run given no tracker: the results of every `external` tool are untrusted. */
export const EXTERNAL_TOOLS_UNTRUSTED: RunFlow = Object.freeze({
  sourcesOf(calls: readonly FlowCall[], turn: number): readonly (readonly FlowSource[])[] {
    return calls.map((call) =>
      call.tool?.effect === "external" ? [{ kind: "tool" as const, name: call.toolName, turn }] : [],
    );
  },
});

// Outcomes of calls that never ran: nothing of a source's came back (the texts are the harness's own).
const NEVER_RAN: ReadonlySet<string> = new Set([
  OBSERVATION_ERROR_CODES.unknownTool,
  OBSERVATION_ERROR_CODES.invalidArguments,
  OBSERVATION_ERROR_CODES.policyDenied,
  OBSERVATION_ERROR_CODES.mcpUnavailable,
  OBSERVATION_ERROR_CODES.tooManyCalls,
  OBSERVATION_ERROR_CODES.argumentsTooLarge,
]);

/** Whether a call's outcome carries what its tool returned (a result, or a source's error text). */
export function broughtContent(outcome: ToolCallOutcome): boolean {
  if (outcome.type === "waiting") return false;
  return outcome.ok || !NEVER_RAN.has(outcome.error);
}
