import type { RunError, RunHeader } from "./run-state.js";

/** Codes of a run's own {@link RunError}s that the loop sets (a model failure carries the model's code). */
export const RUN_ERROR_CODES = {
  /** The run's tokens (input plus output, all turns) went past its `maxTokens`. */
  tokenBudgetExceeded: "token_budget_exceeded",
  /** Something threw inside the loop (a store failed); the run was saved as failed. */
  internalError: "internal_error",
  /**
   * A call of the run may have run but its outcome was not saved (`outcome_unknown`): the run does
   * nothing more until someone decides, per call, to run it again or to tell the model it is unknown.
   */
  callOutcomeUnknown: "call_outcome_unknown",
} as const;

/** Tokens the run has used so far: input plus output of every model turn. */
export function tokensUsed(header: Pick<RunHeader, "usage">): number {
  return header.usage.inputTokens + header.usage.outputTokens;
}

/** Whether the run has used more tokens than its budget allows (never, without a budget). */
export function isOverBudget(header: Pick<RunHeader, "usage" | "maxTokens">): boolean {
  // `?? null`: a format 1 record has no budget field at all.
  const budget = header.maxTokens ?? null;
  return budget !== null && tokensUsed(header) > budget;
}

/** The error a run over its budget stops with. */
export function budgetError(header: Pick<RunHeader, "usage" | "maxTokens">): RunError {
  return {
    code: RUN_ERROR_CODES.tokenBudgetExceeded,
    message: `The run used ${tokensUsed(header)} tokens (input and output), more than its budget of ${String(header.maxTokens)}; resume it with a bigger budget to go on.`,
  };
}
