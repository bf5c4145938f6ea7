import { LoopError } from "./errors.js";
import { type RunHeader, type RunState, type RunSummary, summarizeRunHeader } from "./run-state.js";
import { applyRunChange, assertRunFormat, type RunChange, type RunStore } from "./run-store.js";

interface StoredRun {
  header: RunHeader;
  /** The first user message, for listings. */
  prompt: string;
  /** Each message and call record as JSON text: detached from the caller, and read back only on load. */
  messages: string[];
  calls: string[];
}

/**
 * A {@link RunStore} in memory, for tests and for runs that need not outlive the process. Nothing
 * it holds is shared with a caller: what it is given is serialized (the transcript and call records
 * stay JSON text until a load parses them, as a durable store's would), what it returns is new.
 */
export class InMemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();

  /** Saves a new run; throws `run_exists` if the id is taken. */
  async createRun(state: RunState): Promise<void> {
    assertRunFormat(state);
    if (this.#runs.has(state.runId)) {
      throw new LoopError("run_exists", `A run with id ${state.runId} already exists.`);
    }
    const { messages, calls, ...header } = state;
    const first = messages[0];
    this.#runs.set(state.runId, {
      header: copyJson(header),
      prompt: first?.role === "user" ? first.content : "",
      messages: messages.map((message) => JSON.stringify(message)),
      calls: calls.map((call) => JSON.stringify(call)),
    });
  }

  /** A copy of the run's record. */
  async loadRun(runId: string): Promise<RunState | undefined> {
    const run = this.#runs.get(runId);
    if (!run) return undefined;
    return {
      ...copyJson(run.header),
      messages: JSON.parse(`[${run.messages.join(",")}]`),
      calls: JSON.parse(`[${run.calls.join(",")}]`),
    };
  }

  /** Runs, newest first. */
  async listRuns(options: { limit?: number } = {}): Promise<RunSummary[]> {
    const summaries = [...this.#runs.values()]
      .map((run) => summarizeRunHeader(run.header, run.prompt))
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
    run.header = applyRunChange(run.header, change.set ? { set: copyJson(change.set) } : {}, now);
    for (const message of change.appendMessages ?? []) run.messages.push(JSON.stringify(message));
    for (const call of change.appendCalls ?? []) run.calls.push(JSON.stringify(call));
    return run.header.version;
  }
}

/** A deep copy through JSON: several times faster than structuredClone for a run's small header. */
function copyJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
