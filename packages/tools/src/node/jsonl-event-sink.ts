import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import type { AgentEvent } from "../agent-event.js";
import { type AuditLimits, DEFAULT_AUDIT_LIMITS, serializeForAudit } from "../audit-bounds.js";
import { TOOLS_ERROR_CODES, ToolsError } from "../errors.js";
import { createEventClock, type EventSink } from "../event-sink.js";

/** When a {@link createJsonlEventSink} record reaches the file; see {@link JsonlEventSinkOptions.flush}. */
export type JsonlFlushMode = "decisions" | "sync" | "batched";

/** Options of {@link createJsonlEventSink}. */
export interface JsonlEventSinkOptions {
  limits?: AuditLimits;
  /** Told when a record cannot be written; by default a one-line warning goes to stderr. */
  onError?: (error: unknown) => void;
  /**
   * `"decisions"` (the default): a decision (`tool_call_decided`, `local_path_refused`) or an
   * approval-state event (`approval_*`) is written before `emit` returns, together with every record
   * queued before it; other records wait for the end of the event-loop turn (`setImmediate`), the
   * next decision, `close()` or process `exit`. So a decision is on disk before the call it admits
   * runs, and SIGKILL loses no decision, only the other records of the last turn. `emitDecision`
   * writes the decisions of one microtask wave (those of concurrent calls) in one write, and resolves
   * once it is done: the executor waits for that before running the call. It rejects when the
   * decision could not be written (the file closed, a failed write, a record that cannot be
   * serialized), as it does in `"sync"` mode: the executor then refuses the call (`audit_failed`).
   * `"sync"`: each record is written before `emit` returns; nothing emitted is lost, even by SIGKILL.
   * `"batched"`: every record waits as the non-decisions above do. A process killed by a signal it
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
const RESOLVED: Promise<void> = Promise.resolve();

/** Whether `"decisions"` writes this record at once: what admits, refuses or holds a call. */
function isDecision(type: AgentEvent["type"]): boolean {
  return type === "tool_call_decided" || type === "local_path_refused" || type.startsWith("approval_");
}

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
  const mode = options.flush ?? "decisions";
  mkdirSync(dirname(path), { recursive: true });
  let fd: number | undefined = openAuditFile(path);
  let pending = "";
  // The end-of-turn write of what is pending, while one is scheduled.
  let turnEnd: ReturnType<typeof setImmediate> | undefined;
  // The decisions emitted through emitDecision since the last write, and who waits for them.
  // A write that failed while the batch was open may have held its decisions: the batch then rejects.
  let decisionBatch: DecisionBatch | undefined;
  // Once the process exits no later turn comes: from then on each record is written at once.
  let exiting = false;

  // A write that failed after some of its bytes reached the file (here, or in an earlier process)
  // left a line without its end: the next write ends it first, so later records stay whole lines.
  let torn = endsInsideALine(path, fd);
  /** Writes all of `text`; what made the write fail, reported through onError, or undefined. */
  const write = (text: string): unknown => {
    try {
      if (fd === undefined) throw closedError();
      writeAll(fd, torn ? `\n${text}` : text);
      torn = false;
      return undefined;
    } catch (error) {
      if (error instanceof ShortWriteError && error.written > 0) torn = true;
      onError(error);
      return error;
    }
  };
  const flush = (): void => {
    if (pending === "") return;
    const text = pending;
    pending = "";
    // Written now, so the end-of-turn write has nothing left to do: cancelled, it does not cost the
    // event loop an extra round (a sequential caller's next decision writes every call's records).
    if (turnEnd !== undefined) {
      clearImmediate(turnEnd);
      turnEnd = undefined;
    }
    const failure = write(text);
    if (failure !== undefined && decisionBatch) decisionBatch.failure ??= failure;
  };
  const flushAtTurnEnd = (): void => {
    turnEnd = undefined;
    flush();
  };
  /** Writes the open batch; throws (rejecting the batch's promise) what made a write of it fail. */
  const writeDecisionBatch = (): void => {
    flush();
    const failure = decisionBatch?.failure;
    decisionBatch = undefined;
    if (failure !== undefined) throw failure;
  };
  /** The record's line; throws what makes the event unfit for a record (a cycle). */
  const serialize = (event: AgentEvent): string => `${serializeForAudit(event, limits)}\n`;
  const onExit = (): void => {
    exiting = true;
    flush();
  };
  if (mode !== "sync") process.on("exit", onExit);

  const emit = (event: AgentEvent): void => {
    if (fd === undefined) {
      onError(closedError());
      return;
    }
    let line: string;
    try {
      line = serialize(event);
    } catch (error) {
      onError(error);
      return;
    }
    if (mode === "sync" || exiting) {
      write(line);
      return;
    }
    pending += line;
    if (pending.length >= MAX_PENDING_CHARS || (mode === "decisions" && isDecision(event.type))) flush();
    else turnEnd ??= setImmediate(flushAtTurnEnd);
  };
  const emitDecision = (event: AgentEvent): Promise<void> => {
    // "batched" keeps its own rule: a decision waits for the end of the turn like any record.
    if (mode === "batched") {
      emit(event);
      return RESOLVED;
    }
    let line: string;
    try {
      if (fd === undefined) throw closedError();
      line = serialize(event);
    } catch (error) {
      onError(error);
      return Promise.reject(error);
    }
    if (mode === "sync" || exiting) {
      const failure = write(line);
      return failure === undefined ? RESOLVED : Promise.reject(failure);
    }
    pending += line;
    // After the decisions of this microtask wave: everything pending by then goes in one write. A
    // reaction to a settled promise runs in the next microtask, as queueMicrotask would, and its
    // promise is the batch's: no resolving functions, executor closure or task of its own per batch.
    // Opened before a write of a full batch, so that write's failure is this decision's too.
    decisionBatch ??= { written: RESOLVED.then(writeDecisionBatch), failure: undefined };
    if (pending.length >= MAX_PENDING_CHARS) flush();
    return decisionBatch.written;
  };

  return {
    path,
    clock: createEventClock(),
    emit,
    emitDecision,
    close() {
      if (fd === undefined) return;
      flush();
      process.off("exit", onExit);
      closeSync(fd);
      fd = undefined;
    },
  };
}

/**
 * Writes every byte of `text`, in more than one write(2) when the kernel takes only part of it (at a
 * file-size limit, a full disk or a quota, write(2) takes what fits and says so without failing;
 * only the next write fails). Throws when the file takes no more: a record is on disk whole or its
 * write failed.
 */
function writeAll(fd: number, text: string): void {
  const written = writeSync(fd, text);
  const length = Buffer.byteLength(text);
  if (written === length) return;
  const bytes = Buffer.from(text);
  let offset = written;
  while (offset < length) {
    let more: number;
    try {
      more = writeSync(fd, bytes, offset);
    } catch (error) {
      throw new ShortWriteError(offset, length, error);
    }
    if (more <= 0) throw new ShortWriteError(offset, length, undefined);
    offset += more;
  }
}

/** A write that reached the file only in part: how many of its bytes did. */
class ShortWriteError extends Error {
  constructor(
    readonly written: number,
    length: number,
    cause: unknown,
  ) {
    super(
      `only ${written} of ${length} bytes reached the audit file${cause instanceof Error ? ` (${cause.message})` : ""}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = "ShortWriteError";
  }
}

/** The decisions of one microtask wave, written together, and who waits for them. */
interface DecisionBatch {
  /** Settles once the batch is written: rejected with {@link failure} if a write of it failed. */
  written: Promise<void>;
  /** Why a write that may have held the batch's decisions failed. */
  failure: unknown;
}

function closedError(): Error {
  return new Error("the audit file is closed");
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

/** Whether the file's last byte is not a newline: a record cut short by a failed write. */
function endsInsideALine(path: string, fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  let reader: number | undefined;
  try {
    reader = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const last = Buffer.alloc(1);
    return readSync(reader, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
  } catch {
    // Unreadable (a write-only file): its records are appended as they come.
    return false;
  } finally {
    if (reader !== undefined) closeSync(reader);
  }
}

function unusable(path: string, cause?: unknown): ToolsError {
  return new ToolsError(
    TOOLS_ERROR_CODES.auditFileUnusable,
    `The audit file ${path} is a symbolic link or not a regular file; nothing was written to it. Remove it (an audit trail is a plain file) or choose another location.`,
    cause === undefined ? undefined : { cause },
  );
}
