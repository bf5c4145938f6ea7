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
}
