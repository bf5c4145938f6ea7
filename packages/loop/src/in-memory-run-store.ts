import type { ModelMessage } from "@agent/models";
import { LoopError } from "./errors.js";
import {
  type RunHeader,
  type RunState,
  type RunSummary,
  summarizeRun,
  type ToolCallRecord,
} from "./run-state.js";
import { applyRunChange, assertRunFormat, type RunChange, type RunStore } from "./run-store.js";

interface StoredRun {
  header: RunHeader;
  messages: ModelMessage[];
  calls: ToolCallRecord[];
}

/**
 * A {@link RunStore} in memory, for tests and for runs that need not outlive the process. It copies
 * on the way in and out, so no caller can change a saved run behind the store's back.
 */
export class InMemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();

  /** Saves a new run; throws `run_exists` if the id is taken. */
  async createRun(state: RunState): Promise<void> {
    assertRunFormat(state);
    if (this.#runs.has(state.runId)) {
      throw new LoopError("run_exists", `A run with id ${state.runId} already exists.`);
    }
    const { messages, calls, ...header } = copyJson(state);
    this.#runs.set(state.runId, { header, messages, calls });
  }

  /** A copy of the run's record. */
  async loadRun(runId: string): Promise<RunState | undefined> {
    const run = this.#runs.get(runId);
    if (!run) return undefined;
    return copyJson({ ...run.header, messages: run.messages, calls: run.calls });
  }

  /** Runs, newest first. */
  async listRuns(options: { limit?: number } = {}): Promise<RunSummary[]> {
    const summaries = [...this.#runs.values()]
      .map((run) => summarizeRun({ ...run.header, messages: run.messages.slice(0, 1), calls: [] }))
      .reverse()
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return summaries.slice(0, options.limit ?? summaries.length);
  }

  /** Compare-and-set on the version; synchronous inside, so no other update can interleave. */
  async updateRun(
    runId: string,
    expectedVersion: number,
    change: RunChange,
    now = new Date(),
  ): Promise<number | undefined> {
    const run = this.#runs.get(runId);
    if (!run || run.header.version !== expectedVersion) return undefined;
    // One copy of the whole change: a run saves twice per turn, and each copy costs a serialization.
    const copy = copyJson(change);
    run.header = applyRunChange(run.header, copy, now);
    if (copy.appendMessages) run.messages.push(...copy.appendMessages);
    if (copy.appendCalls) run.calls.push(...copy.appendCalls);
    return run.header.version;
  }
}

/**
 * A deep copy through JSON: what a durable store would give back, and several times faster than
 * structuredClone for the small objects of a run update (it matters: a run saves twice per turn).
 */
function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
