import { closeSync, constants, fstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { type AuditLimits, DEFAULT_AUDIT_LIMITS, serializeForAudit } from "../audit-bounds.js";
import { ToolsError } from "../errors.js";
import type { EventSink } from "../events.js";

/** When a {@link createJsonlEventSink} record reaches the file; see {@link JsonlEventSinkOptions.flush}. */
export type JsonlFlushMode = "sync" | "batched";

/** Options of {@link createJsonlEventSink}. */
export interface JsonlEventSinkOptions {
  limits?: AuditLimits;
  /** Told when a record cannot be written; by default a one-line warning goes to stderr. */
  onError?: (error: unknown) => void;
  /**
   * `"sync"` (the default): each record is written before `emit` returns, so nothing emitted is lost
   * however the process ends, even by SIGKILL. `"batched"`: the records of one event-loop turn are
   * written together on `setImmediate` (and at once on `close()` and on process `exit`, which also
   * follows `process.exit()` and an uncaught exception). Cheaper, but a process killed by a signal it
   * does not handle (SIGKILL; SIGTERM or SIGINT without a handler) loses the records of its last turn.
   */
  flush?: JsonlFlushMode;
}

/** An append-only JSONL audit file. */
export interface JsonlEventSink extends EventSink {
  readonly path: string;
  /** Writes what is pending and closes the file; later events are reported through `onError`. */
  close(): void;
}

// A batch this large is written at once, so memory and what a kill could lose both stay bounded.
const MAX_PENDING_CHARS = 64 * 1024;

// Pending batches written by the one `exit` listener, installed while any batched sink is open.
const flushOnExit = new Set<() => void>();
// Once the process exits no later turn comes: from then on, batched sinks write each record at once.
let exiting = false;
const flushAllOnExit = (): void => {
  exiting = true;
  for (const flush of flushOnExit) flush();
};

/**
 * Appends each event as one JSON line (newlines inside values are escaped by JSON itself), bounded
 * and redacted as {@link serializeForAudit} describes. Each write holds whole lines and goes to a
 * file opened for appending, so records from concurrent processes do not interleave. The file must
 * be a regular file: a symbolic link, a FIFO or a device there throws `ToolsError`
 * (`audit_file_unusable`) at once, never blocks and never writes through the link.
 */
export function createJsonlEventSink(path: string, options: JsonlEventSinkOptions = {}): JsonlEventSink {
  const limits = options.limits ?? DEFAULT_AUDIT_LIMITS;
  const onError =
    options.onError ??
    ((error: unknown) => process.stderr.write(`audit: could not write to ${path}: ${String(error)}\n`));
  const batched = options.flush === "batched";
  mkdirSync(dirname(path), { recursive: true });
  let fd: number | undefined = openAuditFile(path);
  let pending = "";
  let scheduled = false;

  const write = (text: string): void => {
    try {
      if (fd === undefined) throw new Error("the audit file is closed");
      writeSync(fd, text);
    } catch (error) {
      onError(error);
    }
  };
  const flush = (): void => {
    scheduled = false;
    if (pending === "") return;
    const text = pending;
    pending = "";
    write(text);
  };
  if (batched) {
    if (flushOnExit.size === 0) process.on("exit", flushAllOnExit);
    flushOnExit.add(flush);
  }

  return {
    path,
    emit(event) {
      if (fd === undefined) return onError(new Error("the audit file is closed"));
      let line: string;
      try {
        line = `${serializeForAudit(event, limits)}\n`;
      } catch (error) {
        return onError(error);
      }
      if (!batched || exiting) return write(line);
      pending += line;
      if (pending.length >= MAX_PENDING_CHARS) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    close() {
      if (fd === undefined) return;
      flush();
      if (flushOnExit.delete(flush) && flushOnExit.size === 0) process.off("exit", flushAllOnExit);
      closeSync(fd);
      fd = undefined;
    },
  };
}

/** Opens (creating, 0600) the audit file for appending, only if it is a regular file. */
function openAuditFile(path: string): number {
  let fd: number;
  try {
    // O_NOFOLLOW: a planted link is not written through; O_NONBLOCK: a FIFO fails or opens at once.
    fd = openSync(
      path,
      constants.O_WRONLY |
        constants.O_APPEND |
        constants.O_CREAT |
        constants.O_NOFOLLOW |
        constants.O_NONBLOCK,
      0o600,
    );
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "ENXIO") throw unusable(path, cause);
    throw cause;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw unusable(path);
  }
  return fd;
}

function unusable(path: string, cause?: unknown): ToolsError {
  return new ToolsError(
    "audit_file_unusable",
    `The audit file ${path} is a symbolic link or not a regular file; nothing was written to it. Remove it (an audit trail is a plain file) or choose another location.`,
    cause === undefined ? undefined : { cause },
  );
}
