import type { ModelClient, ModelUsage } from "@agent/models";
import type {
  EventSink,
  JsonValue,
  Observation,
  RegisteredTool,
  ToolCallOutcome,
  ToolGate,
  ToolProgress,
} from "@agent/tools";
import type { ToolSource } from "./offered-tools.js";
import type { RunFlow } from "./run-flow.js";
import type { PendingCall, RunError, RunState, RunStopReason } from "./run-state.js";
import type { RunStore } from "./run-store.js";

/** Used when a run sets no turn limit. */
export const DEFAULT_MAX_TURNS = 20;

/** Used when a run sets no bound on tool calls running at once. */
export const DEFAULT_MAX_CONCURRENT_CALLS = 4;

/** Used when a run sets no bound on the tool calls of one model turn. */
export const DEFAULT_MAX_CALLS_PER_TURN = 32;

/** Used when a run sets no bound on the length of one call's arguments (about 25k tokens). */
export const DEFAULT_MAX_ARGUMENT_CHARS = 100_000;

/**
 * Everything a run drives and answers to. The gate is required, as for every caller of
 * `executeToolCall`: the loop has no way to run a tool around it.
 */
export interface AgentEnvironment {
  model: ModelClient;
  /** The tools (a `ToolRegistry`); read at every turn, so tools that change show on the next one. */
  tools: ToolSource;
  gate: ToolGate;
  store: RunStore;
  /** The directory calls run in; approvals bind to it. */
  cwd: string;
  /**
   * Whether the model is told about a tool. Pass the policy's "not denied outright" here: a tool the
   * model can never call only misleads it. Asked about every tool at every model turn, so a policy
   * reloaded mid-run decides the next turn's offer. A call to a tool not offered still goes to the gate.
   */
  isOffered?: (tool: RegisteredTool) => boolean;
  /** Time limit of one tool call; the executor's default otherwise. */
  toolTimeoutMs?: number;
  /** The most characters of one tool result the model reads (see `capToolOutput`). */
  maxToolOutputChars?: number;
  /** How many calls of one turn may run at once; default 4 (`DEFAULT_MAX_CONCURRENT_CALLS`). */
  maxConcurrentCalls?: number;
  /**
   * How many tool calls one model turn may make; default {@link DEFAULT_MAX_CALLS_PER_TURN}. The
   * calls past it are answered `too_many_calls`: never run, never held for approval, their
   * arguments not kept.
   */
  maxCallsPerTurn?: number;
  /**
   * The longest arguments (characters of the model's JSON text) one call may have; default
   * {@link DEFAULT_MAX_ARGUMENT_CHARS}. A call past it is answered `arguments_too_large`: never run,
   * never held for approval, its arguments kept only as their size.
   */
  maxArgumentChars?: number;
  /** Upper bound on each model turn's output tokens. */
  maxOutputTokens?: number;
  /** Receives every event of the run and of its calls. */
  events?: EventSink;
  /** Stops the run: the model request or the running calls are cancelled, and the run saved resumable. */
  signal?: AbortSignal;
  /** Saved as the run's owner when it starts or is claimed (e.g. a process and host). */
  owner?: JsonValue;
  /** Assistant text as it arrives; asking for it makes the model stream. */
  onText?: (delta: string) => void;
  /** Around each model request (e.g. for a spinner). */
  onModelRequest?: (phase: "started" | "finished", turn: number) => void;
  /**
   * Applied to each finished call's observation before the model reads it and before the run's
   * record keeps it (e.g. to redact configured secrets a tool read); must not throw.
   */
  filterObservation?: (observation: Observation) => Observation;
  /**
   * Where content entering the run comes from, for the flow guard (`@agent/policy`'s
   * `createFlowTracker`); default: every `external` tool's results are untrusted. The run's taint is
   * handed to the gate with each call and saved with the run.
   */
  flow?: RunFlow;
  /** Each call as it settles: held, or finished with its outcome. */
  onToolCall?: (call: PendingCall, outcome: ToolCallOutcome) => void;
  onProgress?: (progress: ToolProgress, call: { callId: string; toolName: string }) => void;
  now?: () => Date;
  /** Makes run and call ids; default `run_<uuid>` / `call_<uuid>`. */
  createId?: (kind: "run" | "call") => string;
}

/** How a start or a resume ended. */
export interface RunResult {
  runId: string;
  status: RunStopReason;
  /** The final assistant text, when completed. */
  output: string | null;
  turns: number;
  usage: ModelUsage;
  /** The approval requests holding the run, when waiting. */
  requestIds: string[];
  /** Why, when failed. */
  error?: RunError;
  /** The run's record as saved when it stopped. */
  state: RunState;
}
