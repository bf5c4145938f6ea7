import type { ModelMessage } from "@agent/models";
import { LOOP_ERROR_CODES, LoopError } from "./errors.js";
import { copyJson } from "./json-copy.js";
import { assignHeaderMembers } from "./run-record-copy.js";
import type { RunHeader, RunState, RunSummary } from "./run-state.js";
import { summarizeRunHeader } from "./run-state.js";
import { assertRunFormat, type RunChange, type RunStore } from "./run-store.js";
import {
  loadCallRecord,
  loadMessage,
  type StoredCallRecord,
  type StoredMessage,
  storeCallRecord,
  storeMessage,
} from "./stored-records.js";

interface StoredRun {
  /** The store's own copy, changed in place by updates (nobody else holds it). */
  header: RunHeader;
  /** When it was last updated, as a time value not yet formatted into `header.updatedAt` (done when read). */
  updatedAtMs: number | undefined;
  /** The first user message, for listings. */
  prompt: string;
  /** The transcript, the usual turn's messages in a compact form (stored-records.ts). */
  messages: StoredMessage[];
  calls: StoredCallRecord[];
}

/**
 * A {@link RunStore} in memory, for tests and for runs that need not outlive the process. Nothing
 * it holds is shared with a caller: what it is given is copied as a JSON round trip would copy it
 * (strings shared, being immutable), and what it returns is a new copy. An update copies only the
 * header fields it sets and the items it appends, so saving a long run costs what changed.
 */
export class InMemoryRunStore implements RunStore {
  readonly #runs = new Map<string, StoredRun>();

  /** Saves a new run; throws `run_exists` if the id is taken. */
  async createRun(state: RunState): Promise<void> {
    assertRunFormat(state);
    if (this.#runs.has(state.runId)) {
      throw new LoopError(LOOP_ERROR_CODES.runExists, `A run with id ${state.runId} already exists.`);
    }
    const { messages, calls, ...header } = state;
    const first = messages[0];
    this.#runs.set(state.runId, {
      header: copyJson(header),
      updatedAtMs: undefined,
      prompt: first?.role === "user" ? first.content : "",
      messages: copyJson<ModelMessage[]>(messages),
      calls: copyJson(calls),
    });
  }

  /** A copy of the run's record. */
  async loadRun(runId: string): Promise<RunState | undefined> {
    const run = this.#runs.get(runId);
    if (!run) return undefined;
    return {
      ...copyJson(headerOf(run)),
      messages: run.messages.map(loadMessage),
      calls: run.calls.map(loadCallRecord),
    };
  }

  /** Runs, newest first. */
  async listRuns(options: { limit?: number } = {}): Promise<RunSummary[]> {
    const summaries = [...this.#runs.values()]
      .map((run) => summarizeRunHeader(headerOf(run), run.prompt))
      .reverse()
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return summaries.slice(0, options.limit ?? summaries.length);
  }

  /** Compare-and-set on the version; applied synchronously when called, so no other update can interleave. */
  async updateRun(
    runId: string,
    expectedVersion: number,
    change: RunChange,
    now?: Date,
  ): Promise<number | undefined> {
    const run = this.#runs.get(runId);
    if (!run || run.header.version !== expectedVersion) return undefined;
    const at = now === undefined ? Date.now() : now.getTime();
    // As toISOString would at once: an invalid time is the caller's mistake, not a record.
    if (Number.isNaN(at)) throw new RangeError("updateRun was given an invalid Date as `now`.");
    if (change.set) assignHeaderMembers(run.header, change.set);
    run.header.version = expectedVersion + 1;
    run.updatedAtMs = at;
    if (change.appendMessages)
      for (const message of change.appendMessages) run.messages.push(storeMessage(message));
    if (change.appendCalls) for (const call of change.appendCalls) run.calls.push(storeCallRecord(call));
    return run.header.version;
  }
}

/** The stored header with `updatedAt` brought up to date (formatted only when someone reads it). */
function headerOf(run: StoredRun): RunHeader {
  if (run.updatedAtMs !== undefined) {
    run.header.updatedAt = new Date(run.updatedAtMs).toISOString();
    run.updatedAtMs = undefined;
  }
  return run.header;
}
