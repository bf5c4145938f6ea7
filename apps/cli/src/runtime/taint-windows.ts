import type { Dirent } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { mcpToolGroup } from "@agent/mcp-client";
import { type TaintedFile, type TaintedFileStore, type TaintWindowStore, windowCovers } from "@agent/policy";
import {
  type FlowSource,
  type GateRequest,
  type GateVerdict,
  mergeFlowSources,
  type RegisteredTool,
  type ToolGate,
} from "@agent/tools";
import type { ServerConfig } from "../config/index.js";
import { RUN_COMMAND_TOOL, type Sandboxes } from "./sandboxes.js";

/** How many entries a search below a directory looks at before it counts the whole directory tainted. */
export const MAX_WINDOW_SCAN_ENTRIES = 20_000;

/** What the windowing gate asks of its owner about one call. */
export interface WindowedCalls {
  /** Whether the call may write files that no call names (a command, a local server that can write). */
  writesUnnamedFiles(request: GateRequest): boolean;
  /** The call's own source when its tool is untrusted: what it writes is that server's content. */
  ownSource(request: GateRequest): FlowSource | undefined;
}

/**
 * The gate, with one addition: a call that may write files nobody names runs inside a taint window,
 * recorded before it starts and closed when it ends, when its run is tainted or its tool untrusted
 * (what an untrusted server writes is its content). A window that cannot be recorded refuses the call
 * (it fails as the tool failing).
 */
export function windowingGate(gate: ToolGate, windows: TaintWindowStore, calls: WindowedCalls): ToolGate {
  const windowed = (verdict: GateVerdict, request: GateRequest, sources: FlowSource[]): GateVerdict => {
    if (verdict.type !== "allow") return verdict;
    const { run } = verdict;
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
      if (!calls.writesUnnamedFiles(request)) return verdict;
      const own = calls.ownSource(request);
      const sources = [...mergeFlowSources(request.taint ?? [], own ? [own] : [])];
      if (sources.length === 0) return verdict;
      return verdict.then((answer) => windowed(answer, request, sources));
    },
  };
}

/**
 * The marks of files, plus a mark made from a taint window for each file with none whose status
 * changed inside one: what a tainted run's command (or an untrusted server) wrote taints its readers
 * as `write_file`'s marks do. ctime, not mtime: a command can set a file's mtime, not its ctime.
 */
export function withTaintWindows(files: TaintedFileStore, windows: TaintWindowStore): TaintedFileStore {
  const windowMark = async (path: string, changedAt: number): Promise<TaintedFile | undefined> => {
    const window = await windows.windowAt(changedAt);
    return window && markOf(path, changedAt, window);
  };
  return {
    markTainted: (file) => files.markTainted(file),
    clearTaint: (path) => files.clearTaint(path),
    async findTainted(paths) {
      const marked = await files.findTainted(paths);
      const found = new Set(marked.map((file) => file.path));
      const windowed: TaintedFile[] = [];
      for (const path of paths) {
        if (found.has(path)) continue;
        const changedAt = await changeTime(path);
        const mark = changedAt === undefined ? undefined : await windowMark(path, changedAt);
        if (mark) windowed.push(mark);
      }
      return [...marked, ...windowed];
    },
    async findTaintedUnder(root) {
      const marked = await files.findTaintedUnder(root);
      const all = await windows.listWindows();
      if (all.length === 0) return marked;
      const found = new Set(marked.map((file) => file.path));
      const windowed: TaintedFile[] = [];
      const scanned = await scanChangeTimes(root, MAX_WINDOW_SCAN_ENTRIES);
      for (const { path, changedAt } of scanned.entries) {
        if (found.has(path)) continue;
        const window = all.find((candidate) => windowCovers(candidate, changedAt));
        if (window) windowed.push(markOf(path, changedAt, window));
      }
      // Too much to look at: the directory itself counts, with every window's sources.
      if (!scanned.complete) {
        const sources = all.reduce<readonly FlowSource[]>(
          (merged, window) => mergeFlowSources(merged, window.sources),
          [],
        );
        windowed.push({
          path: root,
          sha256: "",
          runId: all.at(-1)?.runId ?? "",
          sources: [...sources],
          markedAt: new Date().toISOString(),
        });
      }
      return [...marked, ...windowed];
    },
  };
}

function markOf(
  path: string,
  changedAt: number,
  window: { runId: string; sources: FlowSource[] },
): TaintedFile {
  return {
    path,
    sha256: "",
    runId: window.runId,
    sources: window.sources,
    markedAt: new Date(changedAt).toISOString(),
  };
}

async function changeTime(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).ctimeMs;
  } catch {
    return undefined;
  }
}

/** Every entry below `root` (links not followed) with its ctime, up to `limit` entries. */
async function scanChangeTimes(
  root: string,
  limit: number,
): Promise<{ entries: { path: string; changedAt: number }[]; complete: boolean }> {
  const entries: { path: string; changedAt: number }[] = [];
  const directories = [root];
  while (directories.length > 0) {
    const directory = directories.pop() as string;
    let children: Dirent[];
    try {
      children = await readdir(directory, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const child of children) {
      if (entries.length >= limit) return { entries, complete: false };
      const path = join(directory, child.name);
      try {
        entries.push({ path, changedAt: (await lstat(path)).ctimeMs });
      } catch {
        continue;
      }
      if (child.isDirectory()) directories.push(path);
    }
  }
  return { entries, complete: true };
}

/**
 * Whether a tool's calls may write files that no call names: `run_command`, and the tools of a
 * local server that can write (a `write` grant, or no isolation at all). In a tainted run such a
 * call runs in a taint window (see taint-windows.ts).
 */
export function writesUnnamedFiles(
  tool: RegisteredTool,
  servers: readonly ServerConfig[],
  sandboxes: Sandboxes,
): boolean {
  if (tool.group === undefined) return tool.name === RUN_COMMAND_TOOL;
  const server = servers.find((candidate) => mcpToolGroup(candidate.name) === tool.group);
  if (server?.type !== "stdio") return false;
  return server.sandbox.write.length > 0 || sandboxes.sandboxFor(tool)?.isolates !== true;
}
