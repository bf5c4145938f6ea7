export {
  AGENT_EVENT_VOCABULARY_VERSION,
  type AgentEvent,
  type AgentEventInput,
  type AgentEventOf,
  type AgentEventType,
  type CallRequestRecord,
} from "./agent-event.js";
export {
  type AuditLimits,
  DEFAULT_AUDIT_LIMITS,
  SECRET_KEY_PATTERN,
  serializeForAudit,
} from "./audit-bounds.js";
export type { CancellationSignal } from "./call-cancellation.js";
export { CallIds } from "./call-ids.js";
export { canonicalJson, digestJson, type JsonObject, type JsonValue, sha256Hex } from "./canonical-json.js";
export { type DeadlineEntry, type DeadlineHandle, DeadlineQueue } from "./deadline-queue.js";
export { emitDecisionEvent, emitEvent } from "./emit-event.js";
export { TOOLS_ERROR_CODES, ToolsError, type ToolsErrorCode } from "./errors.js";
export {
  createEventClock,
  createMemoryEventSink,
  type EventClock,
  type EventSink,
  fanOutEvents,
  type MemoryEventSink,
  NULL_EVENT_SINK,
  transformEvents,
} from "./event-sink.js";
export {
  DEFAULT_TOOL_TIMEOUT_MS,
  type ExecutionEnvironment,
  executeToolCall,
  type ToolCall,
} from "./execute-tool-call.js";
export {
  copyFlowSource,
  FLOW_SOURCE_KINDS,
  type FlowSource,
  type FlowSourceKind,
  flowSourceKey,
  mergeFlowSources,
  type TrustLabel,
} from "./flow.js";
export type { ExecutionRunner, GateRequest, GateVerdict, ToolGate } from "./gate.js";
export { exceedsJsonDepth, MAX_INPUT_DEPTH } from "./json-depth.js";
export {
  ANNOTATION_KEYWORDS,
  DEFINITION_KEYWORDS,
  GENERAL_KEYWORDS,
  isAnnotationKeyword,
  isValidationKeyword,
  JSON_TYPES,
  type JsonType,
  TYPED_KEYWORDS,
} from "./json-schema-keywords.js";
export {
  type FailureDetails,
  type FailureObservation,
  failureObservation,
  isToolFailure,
  OBSERVATION_ERROR_CODES,
  type Observation,
  type ObservationErrorCode,
  type SuccessObservation,
  type ToolCallOutcome,
  type ToolFailure,
  toolFailure,
  type WaitingOutcome,
} from "./observation.js";
export { removeStrictNulls, type StrictParameters, toStrictParameters } from "./strict-parameters.js";
export {
  defineTool,
  MAX_TOOL_NAME_LENGTH,
  type PrepareResult,
  type RegisteredTool,
  type ToolContext,
  type ToolDefinition,
  type ToolEffect,
  type ToolProgress,
  type ValidationIssue,
} from "./tool.js";
export {
  type CappedToolOutput,
  capToolOutput,
  DEFAULT_TOOL_OUTPUT_MAX_CHARS,
  observationText,
  type ToolOutputCapOptions,
} from "./tool-output-cap.js";
export { type GroupChange, ToolRegistry } from "./tool-registry.js";
