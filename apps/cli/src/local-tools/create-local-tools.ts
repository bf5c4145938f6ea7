import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { TaintedFileStore } from "@agent/policy";
import { type EventSink, NULL_EVENT_SINK, type RegisteredTool } from "@agent/tools";
import { createListDirectoryTool } from "./list-directory-tool.js";
import { PathGuard } from "./path-guard.js";
import type { ProtectedPaths } from "./protected-paths.js";
import { createReadFileTool } from "./read-file-tool.js";
import { createWriteFileTool } from "./write-file-tool.js";

/** The names of the built-in local tools, in the order {@link createLocalTools} returns them. */
export const LOCAL_TOOL_NAMES = ["read_file", "list_directory", "write_file"] as const;

/** A name of {@link LOCAL_TOOL_NAMES}. */
export type LocalToolName = (typeof LOCAL_TOOL_NAMES)[number];

/** Options of {@link createLocalTools}. */
export interface LocalToolsOptions {
  /** The directory the tools are confined to; relative roots resolve against the process's cwd. */
  workspaceRoot: string;
  /** The root as configured, when `workspaceRoot` is its real path: absolute paths under it are accepted too. */
  alias?: string;
  /** What no tool may read or write, wherever it sits (config file, state directory, secrets). */
  protectedPaths?: ProtectedPaths;
  /** Receives `local_path_refused` for every path refused for safety. */
  events?: EventSink;
  /** Where `write_file` marks the files tainted runs write (the flow guard); unmarked without it. */
  taintedFiles?: TaintedFileStore;
}

/**
 * The built-in file tools, each confined to `workspaceRoot` and kept away from `protectedPaths`.
 * The root is pinned by its real path (when it exists) and that real path is part of each tool's
 * fingerprint, so re-pointing a symbolic link at another root changes the tools and voids approvals.
 */
export function createLocalTools(options: LocalToolsOptions): RegisteredTool[] {
  const configured = resolve(options.workspaceRoot);
  const guard = new PathGuard({
    workspaceRoot: realRoot(configured),
    alias: options.alias ?? configured,
    protectedPaths: options.protectedPaths,
  });
  const events = options.events ?? NULL_EVENT_SINK;
  return [
    createReadFileTool(guard, events),
    createListDirectoryTool(guard, events),
    createWriteFileTool(guard, events, options.taintedFiles),
  ];
}

function realRoot(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    // A root that does not exist yet: every call reports it; nothing can be opened below it.
    return root;
  }
}
