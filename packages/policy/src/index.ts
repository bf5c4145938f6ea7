export { ACTION_DIGEST_VERSION, type ActionDigestInput, computeActionDigest } from "./action-digest.js";
export {
  type AllowEntry,
  formatAllowEntry,
  isAllowableHostName,
  isLoopbackHost,
  normalizeHostName,
  parseAllowEntry,
} from "./allow-entry.js";
export {
  denyApprovalRequest,
  grantApprovalRequest,
  voidApprovalRequests,
} from "./approval-decisions.js";
export { approvalIdTaken, approvalNotFound, assertDecidable } from "./approval-errors.js";
export { type ApprovalFlow, approvalFlowOf, restoreApprovalFlow } from "./approval-flow.js";
export { createApprovalId } from "./approval-id.js";
export type {
  ApprovalDraft,
  ApprovalRecord,
  ApprovalRequest,
  ApprovalStatus,
  ApprovalStore,
  NewApprovalRequest,
  SavedApproval,
} from "./approval-store.js";
export {
  isCutPreview,
  MAX_INPUT_PREVIEW_CHARS,
  previewInput,
  summarizeAction,
} from "./approval-summary.js";
export { type ApprovalVoidingSinkOptions, createApprovalVoidingSink } from "./approval-voiding-sink.js";
export {
  type Authorization,
  authorize,
  type PolicyContext,
  type PolicyMatch,
  resolvePolicyDecision,
  type TaintedCall,
} from "./authorize.js";
export { POLICY_ERROR_CODES, PolicyError, type PolicyErrorCode } from "./errors.js";
export { isFlowSink } from "./flow-sink.js";
export {
  createFlowTracker,
  type FlowTracker,
  type FlowTrackerOptions,
  type SourceDescription,
  type TrackedCall,
} from "./flow-tracker.js";
export { InMemoryApprovalStore, type InMemoryApprovalStoreOptions } from "./in-memory-approval-store.js";
export {
  allowedHostsOf,
  allowHostsPolicy,
} from "./network-policy.js";
export {
  DEFAULT_EFFECT_DECISIONS,
  definePolicy,
  type FlowsMode,
  type NetworkPolicy,
  type Policy,
  type PolicyConfig,
  type PolicyDecision,
  type PolicyRule,
  policySchema,
  type SandboxRequirement,
} from "./policy.js";
export {
  createPolicyGate,
  type PolicyDecisions,
  type PolicyGate,
  type PolicyGateOptions,
} from "./policy-gate.js";
export {
  type ExecuteInSandboxOptions,
  executeInSandbox,
  NO_ISOLATION,
  type Sandbox,
  type SandboxRunOptions,
} from "./sandbox.js";
export {
  DIGEST_VERSION_CHANGED_REASON,
  type StaleApprovalSweep,
  voidApprovalsOfChangedTool,
  voidApprovalsOfOlderDigestVersion,
  voidApprovalsOfRemovedTool,
  voidStaleApprovals,
} from "./stale-approvals.js";
export {
  type TaintedFileRow,
  type TaintWindowRow,
  taintedFileOfRow,
  taintedFileRow,
  taintWindowOfRow,
} from "./tainted-file-rows.js";
export {
  InMemoryTaintedFileStore,
  type TaintedFile,
  type TaintedFileStore,
  type TaintWindow,
  type TaintWindowStore,
  UNCLOSED_WINDOW_MS,
  WINDOW_SLACK_MS,
  windowCovers,
} from "./tainted-files.js";
export { isToolPattern, matchesToolPattern, TOOL_PATTERN } from "./tool-pattern.js";
