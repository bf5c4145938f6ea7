import { lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  defineTool,
  type EventSink,
  OBSERVATION_ERROR_CODES,
  type RegisteredTool,
  toolFailure,
} from "@agent/tools";
import { z } from "zod";
import type { PathGuard } from "./path-guard.js";
import type { ProtectedSet } from "./protected-paths.js";
import { refusePath } from "./tool-refusal.js";

/** The most entries one `list_directory` call returns. */
export const MAX_DIRECTORY_ENTRIES = 1000;

const listDirectorySchema = z.object({
  path: z
    .string()
    .min(1)
    .optional()
    .describe("The directory, relative to the workspace root; the root if omitted."),
});

/**
 * One entry of a listing; a symbolic link is reported as such and not followed. `protected`: the
 * agent's own configuration, state directory or a protected path (or a link to one); every local
 * tool refuses it.
 */
export interface DirectoryEntry {
  name: string;
  type: "file" | "directory" | "symlink" | "other" | "protected";
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

/**
 * Creates `list_directory` (effect `read`): the entries of a directory inside the guard's workspace,
 * sorted by name, with protected entries marked `protected` (no size, no type).
 */
export function createListDirectoryTool(
  guard: PathGuard,
  events: EventSink,
): RegisteredTool<z.infer<typeof listDirectorySchema>> {
  return defineTool({
    name: "list_directory",
    description:
      "List a directory inside the workspace: each entry's name, type (file, directory, symlink, other, or protected: off limits to every tool) and, for files, size in bytes.",
    schema: listDirectorySchema,
    effect: "read",
    identity: { workspaceRoot: guard.workspaceRoot },
    async execute(input, context) {
      const requested = input.path ?? ".";
      const opened = await guard.openForReading(requested);
      if (!opened.ok) {
        if (opened.code === "missing") {
          return toolFailure(
            OBSERVATION_ERROR_CODES.toolError,
            `No directory at ${JSON.stringify(requested)}.`,
          );
        }
        if (opened.code === "not_regular") {
          return toolFailure(
            OBSERVATION_ERROR_CODES.toolError,
            `${JSON.stringify(requested)} is not a directory.`,
          );
        }
        return refusePath(opened, { toolName: "list_directory", path: requested, context, events });
      }
      try {
        if (!opened.stats.isDirectory()) {
          return toolFailure(
            OBSERVATION_ERROR_CODES.toolError,
            `${JSON.stringify(opened.relative)} is not a directory; use read_file.`,
          );
        }
        // Listed through the verified descriptor, so a swapped path cannot redirect the listing.
        const directory = `/proc/self/fd/${opened.handle.fd}`;
        const names = (await readdir(directory)).sort();
        const set = guard.protectedSet();
        const entries: DirectoryEntry[] = [];
        for (const name of names.slice(0, MAX_DIRECTORY_ENTRIES)) {
          context.signal.throwIfAborted();
          entries.push(await describeEntry(directory, join(opened.real, name), name, set));
        }
        const output: ListDirectoryOutput = {
          path: opened.relative,
          entries,
          truncated: names.length > MAX_DIRECTORY_ENTRIES,
        };
        return output;
      } finally {
        await opened.handle.close();
      }
    },
  });
}

async function describeEntry(
  directory: string,
  realPath: string,
  name: string,
  set: ProtectedSet,
): Promise<DirectoryEntry> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(join(directory, name));
  } catch {
    // Removed between listing and looking: still report the name rather than fail the whole listing.
    return { name, type: "other" };
  }
  if (set.covers(realPath) || set.holds(stats)) return { name, type: "protected" };
  if (stats.isSymbolicLink()) {
    const target = await stat(join(directory, name)).catch(() => undefined);
    return { name, type: target && set.holds(target) ? "protected" : "symlink" };
  }
  if (stats.isFile()) return { name, type: "file", size: stats.size };
  if (stats.isDirectory()) return { name, type: "directory" };
  return { name, type: "other" };
}
