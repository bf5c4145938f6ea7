import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { defineTool, type RegisteredTool, toolFailure } from "@agent/tools";
import { z } from "zod";
import { resolveWorkspacePath } from "./workspace-paths.js";

/** The most entries one `list_directory` call returns. */
export const MAX_DIRECTORY_ENTRIES = 1000;

const listDirectorySchema = z.object({
  path: z
    .string()
    .min(1)
    .optional()
    .describe("The directory, relative to the workspace root; the root if omitted."),
});

/** One entry of a listing; a symbolic link is reported as such and not followed. */
export interface DirectoryEntry {
  name: string;
  type: "file" | "directory" | "symlink" | "other";
  /** Size in bytes, for files. */
  size?: number;
}

/** What `list_directory` returns. */
export interface ListDirectoryOutput {
  path: string;
  entries: DirectoryEntry[];
  /** Whether entries beyond {@link MAX_DIRECTORY_ENTRIES} were left out. */
  truncated: boolean;
}

/** Creates `list_directory` (effect `read`): the entries of a directory inside `workspaceRoot`, sorted by name. */
export function createListDirectoryTool(
  workspaceRoot: string,
): RegisteredTool<z.infer<typeof listDirectorySchema>> {
  return defineTool({
    name: "list_directory",
    description:
      "List a directory inside the workspace: each entry's name, type (file, directory, symlink, other) and, for files, size in bytes.",
    schema: listDirectorySchema,
    effect: "read",
    identity: { workspaceRoot },
    async execute(input, context) {
      const resolved = await resolveWorkspacePath(workspaceRoot, input.path ?? ".");
      if (!resolved.ok) return toolFailure("tool_error", resolved.message);
      const { path } = resolved;
      if (!path.exists) return toolFailure("tool_error", `No directory at ${JSON.stringify(path.relative)}.`);
      if (!(await lstat(path.absolute)).isDirectory()) {
        return toolFailure(
          "tool_error",
          `${JSON.stringify(path.relative)} is not a directory; use read_file.`,
        );
      }
      const names = (await readdir(path.absolute)).sort();
      const entries: DirectoryEntry[] = [];
      for (const name of names.slice(0, MAX_DIRECTORY_ENTRIES)) {
        context.signal.throwIfAborted();
        entries.push(await describeEntry(path.absolute, name));
      }
      const output: ListDirectoryOutput = {
        path: path.relative,
        entries,
        truncated: names.length > MAX_DIRECTORY_ENTRIES,
      };
      return output;
    },
  });
}

async function describeEntry(directory: string, name: string): Promise<DirectoryEntry> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(join(directory, name));
  } catch {
    // Removed between listing and looking: still report the name rather than fail the whole listing.
    return { name, type: "other" };
  }
  if (stats.isFile()) return { name, type: "file", size: stats.size };
  if (stats.isDirectory()) return { name, type: "directory" };
  if (stats.isSymbolicLink()) return { name, type: "symlink" };
  return { name, type: "other" };
}
