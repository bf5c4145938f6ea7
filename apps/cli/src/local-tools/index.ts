export { createLocalTools, LOCAL_TOOL_NAMES, type LocalToolName } from "./create-local-tools.js";
export {
  createListDirectoryTool,
  type DirectoryEntry,
  type ListDirectoryOutput,
  MAX_DIRECTORY_ENTRIES,
} from "./list-directory-tool.js";
export {
  createReadFileTool,
  DEFAULT_READ_BYTES,
  MAX_READ_BYTES,
  type ReadFileOutput,
} from "./read-file-tool.js";
export { resolveWorkspacePath, type WorkspacePath, type WorkspacePathResult } from "./workspace-paths.js";
export { createWriteFileTool, MAX_WRITE_BYTES, type WriteFileOutput } from "./write-file-tool.js";
