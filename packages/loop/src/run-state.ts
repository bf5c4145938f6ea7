/**
 * The saved record of an agent run. It is the contract between the loop and every RunStore (the
 * in-memory one, SQLite, PostgreSQL), and runs saved by one version of the loop are resumed by the
 * next: change it only on purpose, bump RUN_STATE_FORMAT, and say how older records are read.
 */
import type { ModelMessage, ModelUsage } from "@agent/models";
import type { FlowSource, JsonValue, Observation } from "@agent/tools";

/**
 * The format of {@link RunState} this version writes; a store refuses a record of a format it does
 * not know. Format 1 (before token budgets) had no `maxTokens` and a sha256 in every call record; it
 * is read with `maxTokens: null`. Format 2 (before the flow guard) had no `taint`; it is read with
 * `taint: []` (its runs were never judged for taint). Format 3 (before resumable calls) had no
 * `PendingCall.checkpoint`: its calls are read as they are, none of them resumable. A resume rewrites
 * any older header as format 4, which older loops refuse: they would take a checkpointed call for
 * one that may have run and hold it, or worse, for one still to run.
 * A continued run (`continueRun`: a new user message after the run stopped) needs no new format: its
 * transcript holds more user messages and its `maxTurns` grew, both of shapes every format has.
 */
export const RUN_STATE_FORMAT = 4 as const;

/** Every format this version reads: {@link RUN_STATE_FORMAT} and the ones before it. */
export const READABLE_RUN_STATE_FORMATS: readonly RunStateFormat[] = [1, 2, 3, 4];

/** A format of {@link READABLE_RUN_STATE_FORMATS}. */
export type RunStateFormat = 1 | 2 | 3 | 4;

/** Why a run stopped: a stable, public vocabulary. */
export const RUN_STOP_REASONS = ["completed", "waiting", "max_turns", "failed", "cancelled"] as const;

/** A stop reason of {@link RUN_STOP_REASONS}. */
export type RunStopReason = (typeof RUN_STOP_REASONS)[number];

/** Where a run stands: stopped for one of the {@link RunStopReason}s, or `running` in some process. */
export type RunStatus = RunStopReason | "running";

/** Why a run failed, as it is reported (never a stack, never a key). */
export interface RunError {
  code: string;
  message: string;
}

/**
 * A tool call of the model's latest turn that has not been answered yet, or whose answer waits for
 * the others of its turn: the model reads every result of a turn together.
 */
export interface PendingCall {
  /** The provider's id of the call; the tool result refers to it. */
  toolCallId: string;
  /** The executor's call id: stable across resumes, so events and approvals of one call match. */
  callId: string;
  toolName: string;
  /** The arguments exactly as the model wrote them. */
  arguments: string;
  /**
   * `queued`: not run (or interrupted); `held`: waiting for approval; `done`: `result` is final;
   * `outcome_unknown`: it may have run, but its outcome could not be saved (the store failed, or the
   * process driving it vanished): it is never run again unless someone decides so (see
   * `ResumeRunOptions.unknownOutcomes`). Added within format 2, so a loop older than it would take
   * the call for one still to run: only the next format bump (which older loops refuse) closes that.
   */
  status: "queued" | "held" | "done" | "outcome_unknown";
  /** The approval request holding it, when held (a one-call run keeps the last one through its answer). */
  requestId?: string;
  /** What the model will read, capped, once done. */
  result?: { content: string; isError: boolean };
  /**
   * What the running call saved to be resumed from (`ToolContext.checkpoint`, e.g. the remote task
   * its server runs it as), set while it is `queued`. A call its process left unanswered with one is
   * resumed from it (the task followed again: never run twice, its decision not asked again) instead
   * of being marked `outcome_unknown`. Format 4.
   */
  checkpoint?: JsonValue;
}

/** The full outcome of one finished call, kept in the run's record (the model read a capped text). */
export interface ToolCallRecord {
  callId: string;
  toolCallId: string;
  toolName: string;
  /** The model turn that made the call, from 1; 0 in a one-call run (no model turn). */
  turn: number;
  /** The whole observation, output uncut. */
  observation: Observation;
  /** Whether the model's text was cut, and the size of the whole text. */
  truncated: boolean;
  chars: number;
  bytes: number;
  /** sha256 of the whole text, when it was cut (a whole text is in the transcript as it is). */
  sha256?: string;
}

/** Everything of a run but its two append-only lists; what a store updates in place. */
export interface RunHeader {
  /** Written as {@link RUN_STATE_FORMAT}; an older record loaded as it was saved. */
  format: RunStateFormat;
  runId: string;
  /** Incremented by every update: the compare-and-set token that keeps two processes apart. */
  version: number;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  /** The model that drives the run, for display (the client itself is given at each start or resume). */
  provider: string;
  model: string;
  system: string | null;
  cwd: string;
  maxTurns: number;
  /**
   * The run's token budget (input plus output, all turns): past it the run stops `failed` with
   * `token_budget_exceeded`. `null`: no budget. Read as `null` from a format 1 record, which lacks it.
   */
  maxTokens: number | null;
  /** Model turns completed. */
  turns: number;
  usage: ModelUsage;
  /**
   * sha256 of the tools offered to the model at its latest request (names and definition
   * fingerprints); in a one-call run (`startCallRun`), the called tool's definition fingerprint.
   */
  toolSetFingerprint: string | null;
  /**
   * The untrusted sources the run has taken in, each with the turn it entered at, in that order;
   * empty for a clean run. Once tainted, a run stays tainted: nothing is ever removed. Read as `[]`
   * from a record of format 1 or 2.
   */
  taint: FlowSource[];
  pending: PendingCall[];
  /** The approval requests holding the run, when waiting. */
  requestIds: string[];
  /** The final assistant text, when completed. */
  output: string | null;
  error: RunError | null;
  /** Who runs it now (a process, a host): opaque to the loop, set on start and claim. */
  owner: JsonValue;
}

/** A run's whole record: serializable as JSON, and nothing in it is a secret or a live object. */
export interface RunState extends RunHeader {
  /** The conversation as the model sees it (tool results capped), oldest first. */
  messages: ModelMessage[];
  /** Every finished tool call with its full observation, in the order they finished. */
  calls: ToolCallRecord[];
}

/** A run as lists show it. */
export interface RunSummary {
  runId: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  provider: string;
  model: string;
  turns: number;
  /** The first user message, as typed (empty for a one-call run, which has none). */
  prompt: string;
  requestIds: string[];
  /** Set for a one-call run (`startCallRun`): the tool its call calls, and the request that last held it. */
  call?: { toolName: string; requestId?: string };
}

/** The {@link RunSummary} of a run. */
export function summarizeRun(state: RunState): RunSummary {
  const first = state.messages[0];
  return summarizeRunHeader(state, first?.role === "user" ? first.content : "");
}

/** The {@link RunSummary} of a run's header and first prompt, for stores that keep the two apart. */
export function summarizeRunHeader(header: RunHeader, prompt: string): RunSummary {
  const summary: RunSummary = {
    runId: header.runId,
    status: header.status,
    createdAt: header.createdAt,
    updatedAt: header.updatedAt,
    provider: header.provider,
    model: header.model,
    turns: header.turns,
    prompt,
    requestIds: [...header.requestIds],
  };
  // A one-call run allows no model turn (see call-run.ts); its one call is what lists show of it.
  const call = header.maxTurns === 0 ? header.pending[0] : undefined;
  if (call) {
    summary.call =
      call.requestId === undefined
        ? { toolName: call.toolName }
        : { toolName: call.toolName, requestId: call.requestId };
  }
  return summary;
}
