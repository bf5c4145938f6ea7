import type { ModelMessage } from "@agent/models";
import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import {
  READABLE_RUN_STATE_FORMATS,
  RUN_STATE_FORMAT,
  type RunHeader,
  type RunState,
  type RunSummary,
  type ToolCallRecord,
} from "./run-state.js";

/**
 * One update of a run: header fields to set, and items to append to its two lists. The lists only
 * grow, so an update costs the size of what changed, not the size of the run.
 */
export interface RunChange {
  set?: Partial<Omit<RunHeader, "runId" | "version" | "createdAt" | "updatedAt">>;
  appendMessages?: readonly ModelMessage[];
  appendCalls?: readonly ToolCallRecord[];
}

/**
 * Keeps agent runs. Implementations must make {@link RunStore.updateRun} a compare-and-set on the
 * run's version: of any number of concurrent updates (processes included) made against one version,
 * exactly one applies. That is what lets only one of two racing resumes run a held call.
 * `@agent/loop/testing` has the contract every store must pass.
 */
export interface RunStore {
  /** Saves a new run (its `version` as given); throws `LoopError` `run_exists` if the id is taken. */
  createRun(state: RunState): Promise<void>;
  /** The run's whole record, a copy the caller may change; `undefined` if there is none. */
  loadRun(runId: string): Promise<RunState | undefined>;
  /** Runs, newest first. */
  listRuns(options?: { limit?: number }): Promise<RunSummary[]>;
  /**
   * Applies `change` and sets `updatedAt` (to `now`, or the store's clock when not given) if the
   * run's version is `expectedVersion`, incrementing it;
   * resolves to the new version, or `undefined` (changing nothing) when the run is missing or its
   * version differs: someone else updated it first. Always a promise, also from a store that
   * completes at once (in memory, a synchronous SQLite driver): such a store does its work
   * synchronously inside and answers with a settled promise. A failure is a rejection.
   */
  updateRun(
    runId: string,
    expectedVersion: number,
    change: RunChange,
    now?: Date,
  ): Promise<number | undefined>;
}

/** The header `change` produces from `header`, at version + 1 (shared by stores that keep a header as a whole). */
export function applyRunChange<T extends RunHeader>(header: T, change: RunChange, now: Date): T {
  return { ...header, ...change.set, version: header.version + 1, updatedAt: now.toISOString() };
}

/** Throws `run_format_unknown` for a record this version of the loop cannot read. */
export function assertRunFormat(state: { format: unknown; runId: unknown }): void {
  if (!(READABLE_RUN_STATE_FORMATS as readonly unknown[]).includes(state.format)) {
    throw new LoopError(
      LOOP_ERROR_CODES.runFormatUnknown,
      `Run ${String(state.runId)} was saved in format ${String(state.format)}; this version reads formats up to ${RUN_STATE_FORMAT}. Resume it with the version that started it.`,
    );
  }
}
