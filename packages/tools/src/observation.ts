import type { FlowSource } from "./flow.js";
import type { ValidationIssue } from "./tool.js";

/** Error codes of failed observations: a stable, public vocabulary. */
export const OBSERVATION_ERROR_CODES = {
  unknownTool: "unknown_tool",
  invalidArguments: "invalid_arguments",
  policyDenied: "policy_denied",
  timeout: "timeout",
  cancelled: "cancelled",
  toolError: "tool_error",
  mcpError: "mcp_error",
  mcpToolError: "mcp_tool_error",
  mcpUnavailable: "mcp_unavailable",
  /** The call may have run, but its outcome was lost (e.g. it could not be saved); an operator chose to say so. */
  outcomeUnknown: "outcome_unknown",
  /** The model made more calls in one turn than the run allows; this one was not run. */
  tooManyCalls: "too_many_calls",
  /** The call's arguments were longer than the run allows; it was not run, nor its arguments kept. */
  argumentsTooLarge: "arguments_too_large",
} as const;

/** A code of {@link OBSERVATION_ERROR_CODES}. */
export type ObservationErrorCode = (typeof OBSERVATION_ERROR_CODES)[keyof typeof OBSERVATION_ERROR_CODES];

/** Details a failure may carry, besides its code and message. */
export interface FailureDetails {
  /** Validation issues (`invalid_arguments`). */
  issues?: ValidationIssue[];
  /** Why the policy refused (`policy_denied`). */
  reason?: string;
  /** The numeric JSON-RPC or transport code (`mcp_error`). */
  code?: number;
  /** What the server answered, content blocks kept with their types (`mcp_tool_error`). */
  content?: unknown[];
  /** Anything else worth showing (e.g. the structured content that failed its output schema). */
  data?: unknown;
}

/** A tool call that ran and produced output. */
export interface SuccessObservation {
  type: "observation";
  ok: true;
  callId: string;
  toolName: string;
  output: unknown;
}

/** A tool call that did not produce output, and why. */
export interface FailureObservation extends FailureDetails {
  type: "observation";
  ok: false;
  callId: string;
  toolName: string;
  error: ObservationErrorCode;
  message: string;
}

/** What the model sees after a tool call. */
export type Observation = SuccessObservation | FailureObservation;

/** A call held until someone approves it; nothing has been executed. */
export interface WaitingOutcome {
  type: "waiting";
  callId: string;
  toolName: string;
  requestId: string;
  reason: "approval_required";
  /** `tainted_flow`: the flow guard held it (the run took in untrusted content); absent: a rule's `ask`. */
  heldBy?: "tainted_flow";
  /** The untrusted sources that tainted the run, when it is tainted. */
  taint?: readonly FlowSource[];
}

/** Every way {@link executeToolCall} can end. */
export type ToolCallOutcome = Observation | WaitingOutcome;

const TOOL_FAILURE = Symbol.for("@agent/tools.failure");

/** A failure a tool returns as a value (an expected outcome, not a thrown error). */
export interface ToolFailure extends FailureDetails {
  readonly [TOOL_FAILURE]: true;
  error: ObservationErrorCode;
  message: string;
}

/** Builds a {@link ToolFailure} for a tool to return; the executor turns it into a failed observation. */
export function toolFailure(
  error: ObservationErrorCode,
  message: string,
  details: FailureDetails = {},
): ToolFailure {
  // The brand is not enumerable, so it never leaks into the observation built from the failure.
  return Object.defineProperty({ error, message, ...details }, TOOL_FAILURE, { value: true }) as ToolFailure;
}

/** Whether a tool's return value is a {@link ToolFailure}. */
export function isToolFailure(value: unknown): value is ToolFailure {
  return (
    typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[TOOL_FAILURE] === true
  );
}

/** Builds a failed observation. */
export function failureObservation(
  call: { callId: string; toolName: string },
  error: ObservationErrorCode,
  message: string,
  details: FailureDetails = {},
): FailureObservation {
  return {
    type: "observation",
    ok: false,
    callId: call.callId,
    toolName: call.toolName,
    error,
    message,
    ...details,
  };
}
