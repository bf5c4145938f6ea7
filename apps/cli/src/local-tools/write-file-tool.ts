import { createHash } from "node:crypto";
import type { TaintedFileStore } from "@agent/policy";
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
 * half a file; protected paths are refused. Given `taintedFiles`, a file written by a tainted run is
 * marked tainted before it is written (a mark that cannot be saved refuses the write), and a file
 * written by a clean run loses its mark.
 */
export function createWriteFileTool(
  guard: PathGuard,
  events: EventSink,
  taintedFiles?: TaintedFileStore,
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
      const tainted = taintedFiles !== undefined && context.taint !== undefined && context.taint.length > 0;
      if (tainted) {
        const target = await guard.check(input.path);
        if (!target.ok)
          return refusePath(target, { toolName: "write_file", path: input.path, context, events });
        // Marked first: a file a tainted run wrote is never on disk unmarked, not even after a crash.
        await taintedFiles.markTainted({
          path: target.absolute,
          sha256: createHash("sha256").update(input.content).digest("hex"),
          runId: context.runId,
          sources: [...(context.taint ?? [])],
          markedAt: new Date().toISOString(),
        });
      }
      const written = await guard.writeFile(input.path, input.content, {
        createDirectories: input.createDirectories === true,
        signal: context.signal,
      });
      if (!written.ok) {
        return refusePath(written, { toolName: "write_file", path: input.path, context, events });
      }
      // Cleared only once the clean content is in place: a failure leaves the file marked, never unmarked.
      if (taintedFiles && !tainted) {
        const target = await guard.check(written.relative);
        if (target.ok) await taintedFiles.clearTaint(target.absolute);
      }
      const output: WriteFileOutput = { path: written.relative, bytes, created: written.created };
      return output;
    },
  });
}
