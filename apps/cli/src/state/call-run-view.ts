import { callOfCallRun, type RunState, type RunStatus } from "@agent/loop";
import type { JsonValue } from "@agent/tools";
import type { RunOwner } from "./run-owner.js";

/**
 * A one-call run (`agent call`) as `agent runs show --json` and the console show it: the shape the
 * CLI's own run table had, kept for the people and scripts that read it. The run itself is a run
 * of `@agent/loop` (`startCallRun`); this is a view of it, never saved.
 */
export interface CallRunView {
  id: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, the last change. */
  updatedAt: string;
  status: RunStatus;
  toolName: string;
  callId: string;
  /** The call's input as given (it is replayed when a waiting run resumes). */
  input: JsonValue;
  /** The tool definition's fingerprint when the call was made, if the tool was found. */
  toolFingerprint?: string;
  cwd: string;
  /** The approval request that held the call, if one did. */
  requestId?: string;
  /** The latest observation of the call. */
  outcome?: JsonValue;
  /** The process running a `running` run; absent in any other status, and where none was recorded. */
  owner?: RunOwner;
}

/** The {@link CallRunView} of a one-call run. */
export function callRunView(run: RunState): CallRunView {
  const call = callOfCallRun(run);
  const view: CallRunView = {
    id: run.runId,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    status: run.status,
    toolName: call.toolName,
    callId: call.callId,
    input: call.input,
    cwd: run.cwd,
  };
  if (run.toolSetFingerprint !== null) view.toolFingerprint = run.toolSetFingerprint;
  const requestId = run.pending[0]?.requestId;
  if (requestId !== undefined) view.requestId = requestId;
  const latest = run.calls.at(-1);
  if (latest) view.outcome = latest.observation as unknown as JsonValue;
  const owner = runOwnerOf(run.owner);
  if (owner) view.owner = owner;
  return view;
}

/** The {@link RunOwner} a run records, if it records one (a run saved before owners were has none). */
export function runOwnerOf(owner: JsonValue): RunOwner | undefined {
  if (typeof owner !== "object" || owner === null || Array.isArray(owner)) return undefined;
  const { pid, host } = owner;
  return typeof pid === "number" && typeof host === "string" ? { pid, host } : undefined;
}
