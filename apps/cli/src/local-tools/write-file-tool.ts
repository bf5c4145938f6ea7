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
 * Creates `write_file` (effect `write`): replaces or creates a text file inside the guard's workspace
 * atomically (a temporary file in the same verified directory, then a rename), so readers never see
 * half a file; protected paths are refused.
 */
export function createWriteFileTool(
  guard: PathGuard,
  events: EventSink,
): RegisteredTool<z.infer<typeof writeFileSchema>> {
  return defineTool({
    name: "write_file",
    description:
      "Write a UTF-8 text file inside the workspace, replacing it if it exists. Set createDirectories to create missing parent directories.",
    schema: writeFileSchema,
    effect: "write",
    identity: { workspaceRoot: guard.workspaceRoot },
    async execute(input, context) {
      const bytes = Buffer.byteLength(input.content, "utf8");
      if (bytes > MAX_WRITE_BYTES) {
        return toolFailure(
          OBSERVATION_ERROR_CODES.toolError,
          `The content has ${bytes} bytes; write_file writes at most ${MAX_WRITE_BYTES}.`,
        );
      }
      context.signal.throwIfAborted();
      const written = await guard.writeFile(input.path, input.content, {
        createDirectories: input.createDirectories === true,
        signal: context.signal,
      });
      if (!written.ok) {
        return refusePath(written, { toolName: "write_file", path: input.path, context, events });
      }
      const output: WriteFileOutput = { path: written.relative, bytes, created: written.created };
      return output;
    },
  });
}
