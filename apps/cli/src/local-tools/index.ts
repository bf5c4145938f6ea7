export {
  createLocalTools,
  LOCAL_TOOL_NAMES,
  type LocalToolName,
  type LocalToolsOptions,
} from "./create-local-tools.js";
export {
  createListDirectoryTool,
  type DirectoryEntry,
  type ListDirectoryOutput,
  MAX_DIRECTORY_ENTRIES,
} from "./list-directory-tool.js";
export {
  type GuardedWriteOptions,
  isSafetyRefusal,
  type OpenedPath,
  PATH_REFUSAL_CODES,
  PathGuard,
  type PathRefusal,
  type PathRefusalCode,
  type WrittenFile,
} from "./path-guard.js";
export {
  isSameOrInside,
  listProtectedPaths,
  type ProtectedPaths,
  ProtectedSet,
  realPathOf,
} from "./protected-paths.js";
export {
  createReadFileTool,
  DEFAULT_READ_BYTES,
  MAX_READ_BYTES,
  type ReadFileOutput,
} from "./read-file-tool.js";
export {
  createRunCommandTool,
  DEFAULT_COMMAND_TIMEOUT_MS,
  MAX_COMMAND_OUTPUT_BYTES,
  MAX_COMMAND_TIMEOUT_MS,
  type RunCommandOutput,
  type RunCommandToolOptions,
} from "./run-command-tool.js";
export { refusePath } from "./tool-refusal.js";
export { resolveWorkspacePath, type WorkspacePath, type WorkspacePathResult } from "./workspace-paths.js";
export { createWriteFileTool, MAX_WRITE_BYTES, type WriteFileOutput } from "./write-file-tool.js";
