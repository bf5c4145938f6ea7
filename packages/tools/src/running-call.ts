// The run of one admitted call: the tool, its time limit and the caller's cancellation, settled by
// whichever comes first. Per call it allocates one settling object and the tool's context; the
// timer and the caller's abort reach it without a closure each.

import { messageOf } from "@agent/base";
import type { CallRequestRecord } from "./agent-event.js";
import type { CallCancellation } from "./call-cancellation.js";
import type { JsonValue } from "./canonical-json.js";
import {
  type DeadlineEntry,
  type DeadlineHandle,
  type DeadlineQueue,
  MAX_TIMER_MS,
} from "./deadline-queue.js";
import type { ExecutionEnvironment } from "./execute-tool-call.js";
import type { FlowSource } from "./flow.js";
import {
  type FailureDetails,
  failureObservation,
  isToolFailure,
  OBSERVATION_ERROR_CODES,
  type Observation,
  type ObservationErrorCode,
} from "./observation.js";
import type { ToolContext, ToolProgress } from "./tool.js";

/**
 * Holds a call's MCP request for its outcome record, while that record is still to be written (see
 * `ToolContext.recordRequest`); only an audited call has one.
 */
export class CallRecorder {
  request: CallRequestRecord | undefined;
  #open = true;

  /** Takes the request for the outcome record; false once that record is written (a late request). */
  take(request: CallRequestRecord): boolean {
    if (!this.#open) return false;
    this.request = request;
    return true;
  }

  /** The request taken, if any; later ones are recorded by whoever made them. */
  close(): CallRequestRecord | undefined {
    this.#open = false;
    return this.request;
  }
}

/** The names a call is known by in its events and its observation. */
export interface CallIdentity {
  runId: string;
  callId: string;
  toolName: string;
}

/**
 * Runs an admitted call through its runner (the sandbox) and resolves with its observation: the
 * tool's result, its failure (a throw, even at once, is a `tool_error`), `timeout` after
 * `timeoutMs`, or `cancelled` when the caller's signal aborts. On a timeout or an abort the
 * observation is returned at once, even if the tool ignores its signal, and the call's
 * cancellation is aborted. The time limit is the environment's (`DEFAULT_TOOL_TIMEOUT_MS` without
 * one), the taint the call's or else the environment's.
 */
export function runAdmitted(
  run: (execute: () => Promise<unknown>) => Promise<unknown>,
  execute: (context: ToolContext) => Promise<unknown>,
  env: ExecutionEnvironment,
  ids: CallIdentity,
  cancellation: CallCancellation,
  recorder: CallRecorder | undefined,
  continuation: CallContinuation,
): Promise<Observation> {
  return new Promise<Observation>((resolve) => {
    const timeoutMs = timeLimitOf(env);
    const call = new SettlingCall(ids, cancellation, env.signal, resolve, timeoutMs, env.registry.deadlines);
    const taint = continuation.taint ?? env.taint;
    const context = new RunningCallContext(env, ids, cancellation, taint, recorder);
    if (continuation.checkpoint) context.checkpoint = continuation.checkpoint;
    if (continuation.resume !== undefined) context.resume = continuation.resume;
    // The runner's own promise is listened to (no promise in between to adopt it: two microtask turns).
    let running: Promise<unknown>;
    try {
      running = Promise.resolve(run(() => execute(context)));
    } catch (error) {
      running = Promise.reject(error);
    }
    running.then(
      (value) => call.finish(toObservation(ids, value)),
      (error: unknown) =>
        call.finish(
          failureObservation(ids, OBSERVATION_ERROR_CODES.toolError, `The tool failed: ${messageOf(error)}`),
        ),
    );
  });
}

/**
 * Settles a call once: with the tool's end, its timeout, or the caller's abort (as an event listener
 * object). Its time limit is an entry in the registry's deadline queue, or else a timer of its own.
 */
class SettlingCall implements DeadlineEntry {
  #settled = false;
  readonly #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #deadline: DeadlineHandle | undefined;

  constructor(
    readonly ids: CallIdentity,
    readonly cancellation: CallCancellation,
    readonly callerSignal: AbortSignal | undefined,
    readonly resolve: (observation: Observation) => void,
    readonly timeoutMs: number,
    readonly deadlines: DeadlineQueue | undefined,
  ) {
    if (deadlines) this.#deadline = deadlines.add(this, timeoutMs);
    else this.#timer = setTimeout(timeOut, timeoutMs, this);
    callerSignal?.addEventListener("abort", this, { once: true });
  }

  /** The time limit passed. */
  expire(): void {
    this.stop(OBSERVATION_ERROR_CODES.timeout, `The tool did not finish within ${this.timeoutMs} ms.`);
  }

  /** The caller's signal aborted. */
  handleEvent(): void {
    this.stop(OBSERVATION_ERROR_CODES.cancelled, "The call was cancelled.");
  }

  finish(observation: Observation): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#deadline) this.deadlines?.remove(this.#deadline);
    else clearTimeout(this.#timer);
    this.callerSignal?.removeEventListener("abort", this);
    this.resolve(observation);
  }

  stop(error: ObservationErrorCode, message: string): void {
    if (this.#settled) return;
    this.finish(failureObservation(this.ids, error, message));
    this.cancellation.abort(new Error(message));
  }
}

function timeOut(call: SettlingCall): void {
  call.expire();
}

/** Used when the environment sets no timeout. */
export const DEFAULT_TOOL_TIMEOUT_MS = 60_000;

/** setTimeout fires at once for delays past 2^31-1 ms (or Infinity): those wait the longest it can. */
function timeLimitOf(env: ExecutionEnvironment): number {
  return Math.min(env.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS, MAX_TIMER_MS);
}

/** The call's own taint, how it is saved to be resumed, and what it resumes from (see `ToolCall`). */
export interface CallContinuation {
  taint?: readonly FlowSource[] | undefined;
  checkpoint?: ((state: JsonValue) => Promise<void> | void) | undefined;
  resume?: JsonValue | undefined;
}

/** What a running tool receives; its `signal` is the call's cancellation, created on first read. */
class RunningCallContext implements ToolContext {
  readonly callId: string;
  readonly runId: string;
  readonly cwd: string;
  readonly progressListened: boolean;
  readonly cancellation: CallCancellation;
  readonly taint: readonly FlowSource[] | undefined;
  /**
   * An own function, so that a tool may pass it on detached or spread the context. Nobody listens
   * to progress unless the environment has `onProgress`: then one shared function that does nothing
   * serves, and no closure is made per call.
   */
  readonly reportProgress: (progress: ToolProgress) => void;
  readonly #recorder: CallRecorder | undefined;
  checkpoint?: (state: JsonValue) => Promise<void> | void;
  resume?: JsonValue;

  constructor(
    env: ExecutionEnvironment,
    ids: CallIdentity,
    cancellation: CallCancellation,
    taint: readonly FlowSource[] | undefined,
    recorder: CallRecorder | undefined,
  ) {
    this.#recorder = recorder;
    this.callId = ids.callId;
    this.runId = ids.runId;
    this.cwd = env.cwd;
    this.progressListened = env.onProgress !== undefined;
    this.cancellation = cancellation;
    this.taint = taint;
    const { onProgress } = env;
    this.reportProgress = onProgress
      ? (progress) => {
          if (!cancellation.aborted) onProgress(progress, { callId: ids.callId, toolName: ids.toolName });
        }
      : ignoreProgress;
  }

  get signal(): AbortSignal {
    return this.cancellation.signal;
  }

  recordRequest(request: CallRequestRecord): boolean {
    return this.#recorder?.take(request) ?? false;
  }
}

function ignoreProgress(_progress: ToolProgress): void {}

function toObservation(ids: CallIdentity, value: unknown): Observation {
  if (isToolFailure(value)) {
    const { error, message, ...details } = value;
    return failureObservation(ids, error, message, details as FailureDetails);
  }
  return { type: "observation", ok: true, callId: ids.callId, toolName: ids.toolName, output: value };
}
