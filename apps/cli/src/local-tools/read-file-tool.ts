import type { FileHandle } from "node:fs/promises";
import {
  defineTool,
  type EventSink,
  OBSERVATION_ERROR_CODES,
  type RegisteredTool,
  toolFailure,
} from "@agent/tools";
import { z } from "zod";
import type { PathGuard } from "./path-guard.js";
import { refusePath } from "./tool-refusal.js";

/** How many bytes `read_file` returns when the call does not say. */
export const DEFAULT_READ_BYTES = 256 * 1024;

/** The most bytes one `read_file` call may ask for. */
export const MAX_READ_BYTES = 4 * 1024 * 1024;

const readFileSchema = z.object({
  path: z.string().min(1).describe("The file, relative to the workspace root."),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .max(MAX_READ_BYTES)
    .optional()
    .describe(
      `Return at most this many bytes (default ${DEFAULT_READ_BYTES}); longer files are cut and marked truncated.`,
    ),
});

/** What `read_file` returns. */
export interface ReadFileOutput {
  path: string;
  content: string;
  /** The file's size in bytes. */
  size: number;
  /** Whether `content` is only the start of the file. */
  truncated: boolean;
}

/**
 * Creates `read_file` (effect `read`): a UTF-8 text file inside the guard's workspace, cut at a size
 * limit; binary files, special files and protected paths are refused.
 */
export function createReadFileTool(
  guard: PathGuard,
  events: EventSink,
): RegisteredTool<z.infer<typeof readFileSchema>> {
  return defineTool({
    name: "read_file",
    description:
      "Read a UTF-8 text file inside the workspace. Returns its content (cut at maxBytes, marked truncated) and size. Binary files are refused.",
    schema: readFileSchema,
    effect: "read",
    identity: { workspaceRoot: guard.workspaceRoot },
    async execute(input, context) {
      const opened = await guard.openForReading(input.path);
      if (!opened.ok) {
        if (opened.code === "missing") {
          return toolFailure(OBSERVATION_ERROR_CODES.toolError, `No file at ${JSON.stringify(input.path)}.`);
        }
        if (opened.code === "not_regular") return notRegular(input.path);
        return refusePath(opened, { toolName: "read_file", path: input.path, context, events });
      }
      const { handle, stats } = opened;
      let bytes: Buffer;
      try {
        if (stats.isDirectory()) {
          return toolFailure(
            OBSERVATION_ERROR_CODES.toolError,
            `${JSON.stringify(opened.relative)} is a directory; use list_directory.`,
          );
        }
        if (!stats.isFile()) return notRegular(opened.relative);
        bytes = await readUpTo(
          handle,
          Math.min(stats.size, input.maxBytes ?? DEFAULT_READ_BYTES),
          context.signal,
        );
      } finally {
        await handle.close();
      }
      const truncated = stats.size > bytes.length;
      if (bytes.includes(0)) {
        return toolFailure(
          OBSERVATION_ERROR_CODES.toolError,
          `${JSON.stringify(opened.relative)} looks binary (it contains NUL bytes); read_file returns text only.`,
        );
      }
      let content: string;
      try {
        // `stream` leaves a character cut by the size limit out instead of failing on it.
        content = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: truncated });
      } catch {
        return toolFailure(
          OBSERVATION_ERROR_CODES.toolError,
          `${JSON.stringify(opened.relative)} is not UTF-8 text; read_file returns text only.`,
        );
      }
      const output: ReadFileOutput = { path: opened.relative, content, size: stats.size, truncated };
      return output;
    },
  });
}

function notRegular(relative: string): ReturnType<typeof toolFailure> {
  return toolFailure(
    OBSERVATION_ERROR_CODES.toolError,
    `${JSON.stringify(relative)} is not a regular file; read_file reads files only.`,
  );
}

async function readUpTo(handle: FileHandle, length: number, signal: AbortSignal): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    signal.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, filled, length - filled, filled);
    // The file shrank while being read: return what there is.
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
