import { resolve } from "node:path";
import type { RegisteredTool } from "@agent/tools";
import { createListDirectoryTool } from "./list-directory-tool.js";
import { createReadFileTool } from "./read-file-tool.js";
import { createWriteFileTool } from "./write-file-tool.js";

/** The names of the built-in local tools, in the order {@link createLocalTools} returns them. */
export const LOCAL_TOOL_NAMES = ["read_file", "list_directory", "write_file"] as const;

/** A name of {@link LOCAL_TOOL_NAMES}. */
export type LocalToolName = (typeof LOCAL_TOOL_NAMES)[number];

/**
 * The built-in file tools, each confined to `workspaceRoot` (relative roots resolve against the
 * process's cwd). The root is part of each tool's fingerprint, so an approval for one root never
 * applies to another.
 */
export function createLocalTools(options: { workspaceRoot: string }): RegisteredTool[] {
  const root = resolve(options.workspaceRoot);
  return [createReadFileTool(root), createListDirectoryTool(root), createWriteFileTool(root)];
}
