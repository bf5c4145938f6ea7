import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { type AuditLimits, boundForAudit, DEFAULT_AUDIT_LIMITS } from "../audit-bounds.js";
import type { EventSink } from "../events.js";

/** Options of {@link createJsonlEventSink}. */
export interface JsonlEventSinkOptions {
  limits?: AuditLimits;
  /** Told when a record cannot be written; by default a one-line warning goes to stderr. */
  onError?: (error: unknown) => void;
}

/** An append-only JSONL audit file. */
export interface JsonlEventSink extends EventSink {
  readonly path: string;
  close(): void;
}

/**
 * Appends each event as one JSON line (newlines inside values are escaped by JSON itself), bounded
 * and redacted by {@link boundForAudit}. Each record is one `write` to a file opened for appending,
 * so records from concurrent processes do not interleave.
 */
export function createJsonlEventSink(path: string, options: JsonlEventSinkOptions = {}): JsonlEventSink {
  const limits = options.limits ?? DEFAULT_AUDIT_LIMITS;
  const onError =
    options.onError ??
    ((error: unknown) => process.stderr.write(`audit: could not write to ${path}: ${String(error)}\n`));
  mkdirSync(dirname(path), { recursive: true });
  let fd: number | undefined = openSync(path, "a", 0o600);
  return {
    path,
    emit(event) {
      if (fd === undefined) return onError(new Error("the audit file is closed"));
      try {
        writeSync(fd, `${JSON.stringify(boundForAudit(event, limits))}\n`);
      } catch (error) {
        onError(error);
      }
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
