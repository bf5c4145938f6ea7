import type { FlowSource } from "@agent/tools";

/** A workspace file that a tainted run wrote: whoever reads it takes in that run's untrusted sources. */
export interface TaintedFile {
  /** The file's absolute, real path. */
  path: string;
  /** sha256 of the content the tainted run wrote. */
  sha256: string;
  /** The run that wrote it. */
  runId: string;
  /** What had tainted that run when it wrote the file. */
  sources: FlowSource[];
  /** ISO 8601. */
  markedAt: string;
}

/**
 * Where the flow guard remembers the files tainted runs wrote, across runs and processes (the CLI
 * keeps them in its state database). One mark per path: a tainted write replaces it, a write by a
 * clean run removes it.
 */
export interface TaintedFileStore {
  markTainted(file: TaintedFile): Promise<void>;
  clearTaint(path: string): Promise<void>;
  /** The marks of those of `paths` that are tainted. */
  findTainted(paths: readonly string[]): Promise<TaintedFile[]>;
  /** The marks of every file below the directory `root` (absolute): what a command run there may read or run. */
  findTaintedUnder(root: string): Promise<TaintedFile[]>;
}

/** A {@link TaintedFileStore} in memory, for tests and for harnesses with no durable state. */
export class InMemoryTaintedFileStore implements TaintedFileStore {
  readonly #files = new Map<string, TaintedFile>();

  async markTainted(file: TaintedFile): Promise<void> {
    this.#files.set(file.path, structuredClone(file));
  }

  async clearTaint(path: string): Promise<void> {
    this.#files.delete(path);
  }

  async findTainted(paths: readonly string[]): Promise<TaintedFile[]> {
    return paths.flatMap((path) => {
      const file = this.#files.get(path);
      return file ? [structuredClone(file)] : [];
    });
  }

  async findTaintedUnder(root: string): Promise<TaintedFile[]> {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    return [...this.#files.values()]
      .filter((file) => file.path.startsWith(prefix))
      .map((file) => structuredClone(file));
  }
}

/**
 * A stretch of time in which a tainted run ran something that can write files nobody names (a
 * command, a server with a write grant): a file changed then may hold what the run took in.
 */
export interface TaintWindow {
  id: string;
  runId: string;
  sources: FlowSource[];
  /** Milliseconds since the epoch. */
  startedAt: number;
  /** Milliseconds since the epoch; `null` while the call runs (or if its process died). */
  endedAt: number | null;
}

/** Where the flow guard keeps {@link TaintWindow}s (beside the {@link TaintedFileStore} marks). */
export interface TaintWindowStore {
  openWindow(window: Omit<TaintWindow, "endedAt">): Promise<void>;
  closeWindow(id: string, endedAt: number): Promise<void>;
  /** A window during which a file whose status changed at `changedAt` (ms) may have been written. */
  windowAt(changedAt: number): Promise<TaintWindow | undefined>;
  /** Every window, oldest first: for checking many files at once. */
  listWindows(): Promise<TaintWindow[]>;
}

/** How long a window that was never closed (its process died mid-call) is taken to last. */
export const UNCLOSED_WINDOW_MS = 60 * 60 * 1000;

/** Milliseconds either side of a window within which a change still counts (clock and flush skew). */
export const WINDOW_SLACK_MS = 1000;

/** Whether a change at `changedAt` falls in `window` (see {@link WINDOW_SLACK_MS}, {@link UNCLOSED_WINDOW_MS}). */
export function windowCovers(window: TaintWindow, changedAt: number): boolean {
  const end = window.endedAt ?? window.startedAt + UNCLOSED_WINDOW_MS;
  return changedAt >= window.startedAt - WINDOW_SLACK_MS && changedAt <= end + WINDOW_SLACK_MS;
}
