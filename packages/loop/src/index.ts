export {
  type AgentEnvironment,
  DEFAULT_MAX_ARGUMENT_CHARS,
  DEFAULT_MAX_CALLS_PER_TURN,
  DEFAULT_MAX_TURNS,
  type RunResult,
} from "./agent-environment.js";
export { type ResumeRunOptions, resumeRun, type StartRunOptions, startRun } from "./agent-run.js";
export {
  type CallRunAnswer,
  type CallRunCall,
  callOfCallRun,
  claimCallRun,
  isCallRun,
  type StartCallRunOptions,
  settleCallRun,
  startCallRun,
} from "./call-run.js";
export { type ContinueRunOptions, continueRun } from "./continue-run.js";
export { LOOP_ERROR_CODES, LoopError, type LoopErrorCode } from "./errors.js";
export { InMemoryRunStore } from "./in-memory-run-store.js";
export type { ToolSource } from "./offered-tools.js";
export { RUN_ERROR_CODES } from "./run-budget.js";
export { EXTERNAL_TOOLS_UNTRUSTED, type FlowCall, type RunFlow } from "./run-flow.js";
export {
  type PendingCall,
  READABLE_RUN_STATE_FORMATS,
  type RunError,
  type RunHeader,
  type RunState,
  type RunStateFormat,
  type RunStatus,
  type RunStopReason,
  type RunSummary,
  summarizeRunHeader,
  type ToolCallRecord,
} from "./run-state.js";
export { applyRunChange, assertRunFormat, type RunChange, type RunStore } from "./run-store.js";
export type { UnknownOutcomeDecision } from "./unknown-outcomes.js";
