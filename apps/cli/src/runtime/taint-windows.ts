import { stat } from "node:fs/promises";
import type { TaintedFile, TaintedFileStore, TaintWindowStore } from "@agent/policy";
import type { GateRequest, GateVerdict, ToolGate } from "@agent/tools";

/**
 * The gate, with one addition: a call of a tainted run that may write files nobody names (a
 * command, a server that can write) runs inside a taint window, recorded before it starts and closed
 * when it ends. A window that cannot be recorded refuses the call (it fails as the tool failing).
 */
export function windowingGate(
  gate: ToolGate,
  windows: TaintWindowStore,
  writesUnnamedFiles: (request: GateRequest) => boolean,
): ToolGate {
  const windowed = (verdict: GateVerdict, request: GateRequest): GateVerdict => {
    if (verdict.type !== "allow") return verdict;
    const { run } = verdict;
    const sources = [...(request.taint ?? [])];
    return {
      ...verdict,
      run: async (execute) => {
        const id = `win_${globalThis.crypto.randomUUID()}`;
        await windows.openWindow({ id, runId: request.runId, sources, startedAt: Date.now() });
        try {
          return await run(execute);
        } finally {
          // A window left open (the close failed) is taken to last an hour: more taint, never less.
          await windows.closeWindow(id, Date.now()).catch(() => undefined);
        }
      },
    };
  };
  return {
    admit(request) {
      const verdict = gate.admit(request);
      if (!request.taint || request.taint.length === 0 || !writesUnnamedFiles(request)) return verdict;
      return verdict instanceof Promise
        ? verdict.then((answer) => windowed(answer, request))
        : windowed(verdict as GateVerdict, request);
    },
  };
}

/**
 * The marks of `files`, and for a file with none whose status changed inside a taint window, a mark
 * made from that window: what a tainted run's command wrote taints its readers as `write_file`'s do.
 */
export function withTaintWindows(files: TaintedFileStore, windows: TaintWindowStore): TaintedFileStore {
  return {
    markTainted: (file) => files.markTainted(file),
    clearTaint: (path) => files.clearTaint(path),
    findTaintedUnder: (root) => files.findTaintedUnder(root),
    async findTainted(paths) {
      const marked = await files.findTainted(paths);
      const found = new Set(marked.map((file) => file.path));
      const windowed: TaintedFile[] = [];
      for (const path of paths) {
        if (found.has(path)) continue;
        let changedAt: number;
        try {
          // ctime, not mtime: a command can set a file's mtime to anything, not its ctime.
          changedAt = (await stat(path)).ctimeMs;
        } catch {
          continue;
        }
        const window = await windows.windowAt(changedAt);
        if (window) {
          windowed.push({
            path,
            sha256: "",
            runId: window.runId,
            sources: window.sources,
            markedAt: new Date(changedAt).toISOString(),
          });
        }
      }
      return [...marked, ...windowed];
    },
  };
}
