import { randomUUID } from "node:crypto";
import { chmod, lstat, mkdir, open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { defineTool, type RegisteredTool, toolFailure } from "@agent/tools";
import { z } from "zod";
import { resolveWorkspacePath } from "./workspace-paths.js";

/** The most bytes (UTF-8) one `write_file` call may write. */
export const MAX_WRITE_BYTES = 4 * 1024 * 1024;

const writeFileSchema = z.object({
  path: z.string().min(1).describe("The file, relative to the workspace root."),
  content: z.string().describe("The whole new content, as UTF-8 text."),
  createDirectories: z.boolean().optional().describe("Create missing parent directories (default false)."),
});

/** What `write_file` returns. */
export interface WriteFileOutput {
  path: string;
  /** Bytes written. */
  bytes: number;
  /** Whether the file did not exist before. */
  created: boolean;
}

/**
 * Creates `write_file` (effect `write`): replaces or creates a text file inside `workspaceRoot`
 * atomically (a temporary file in the same directory, then a rename), so readers never see half a file.
 */
export function createWriteFileTool(workspaceRoot: string): RegisteredTool<z.infer<typeof writeFileSchema>> {
  return defineTool({
    name: "write_file",
    description:
      "Write a UTF-8 text file inside the workspace, replacing it if it exists. Set createDirectories to create missing parent directories.",
    schema: writeFileSchema,
    effect: "write",
    identity: { workspaceRoot },
    async execute(input, context) {
      const bytes = Buffer.byteLength(input.content, "utf8");
      if (bytes > MAX_WRITE_BYTES) {
        return toolFailure(
          "tool_error",
          `The content has ${bytes} bytes; write_file writes at most ${MAX_WRITE_BYTES}.`,
        );
      }
      const resolved = await resolveWorkspacePath(workspaceRoot, input.path);
      if (!resolved.ok) return toolFailure("tool_error", resolved.message);
      const { path } = resolved;
      let mode: number | undefined;
      if (path.exists) {
        const stats = await lstat(path.absolute);
        if (stats.isDirectory()) {
          return toolFailure("tool_error", `${JSON.stringify(path.relative)} is a directory.`);
        }
        if (!stats.isFile()) {
          return toolFailure("tool_error", `${JSON.stringify(path.relative)} is not a regular file.`);
        }
        mode = stats.mode & 0o7777;
      } else if (path.missingComponents > 1) {
        if (input.createDirectories !== true) {
          return toolFailure(
            "tool_error",
            `The directory of ${JSON.stringify(path.relative)} does not exist; pass createDirectories: true to create it.`,
          );
        }
        // Everything created here lies below a real, checked directory inside the root.
        await mkdir(dirname(path.absolute), { recursive: true });
      }
      context.signal.throwIfAborted();
      await writeAtomically(path.absolute, input.content, mode, context.signal);
      const output: WriteFileOutput = { path: path.relative, bytes, created: !path.exists };
      return output;
    },
  });
}

async function writeAtomically(
  target: string,
  content: string,
  mode: number | undefined,
  signal: AbortSignal,
): Promise<void> {
  const temporary = join(dirname(target), `.${basename(target)}.${randomUUID().slice(0, 8)}.tmp`);
  try {
    // "wx" creates a new file and fails on anything already there, a planted symbolic link included.
    const handle = await open(temporary, "wx", mode ?? 0o666);
    try {
      await handle.writeFile(content, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The umask may have narrowed the mode; an existing file keeps exactly the mode it had.
    if (mode !== undefined) await chmod(temporary, mode);
    signal.throwIfAborted();
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
