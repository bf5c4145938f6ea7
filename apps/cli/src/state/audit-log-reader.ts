import { constants, statSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { isRecord } from "@agent/base";
import { notRegular } from "./state-files.js";

/** One record of the audit trail, as written: a JSON object with at least a string `type`. */
export type AuditRecord = Record<string, unknown> & { type: string };

/** One line of the audit file: a record, or a line that is not one, kept verbatim with why. */
export type AuditEntry =
  | { type: "record"; line: number; record: AuditRecord }
  | { type: "corrupt"; line: number; text: string; reason: string };

/** Options of {@link followAuditLog}. */
export interface FollowAuditLogOptions {
  /** Stops following: the iteration ends quietly (no error) soon after it is aborted. */
  signal: AbortSignal;
  /** Yield the lines already in the file first; by default only lines appended from now on. */
  fromStart?: boolean;
  /** How often to look for new lines, in milliseconds; defaults to 200. */
  pollIntervalMs?: number;
}

const CHUNK_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Classifies one line of the audit file. Blank lines give `undefined`; anything that is not a JSON
 * object with a string `type` is `corrupt`, with the text kept so nothing is lost.
 */
export function parseAuditLine(text: string, line: number): AuditEntry | undefined {
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { type: "corrupt", line, text, reason: "not valid JSON" };
  }
  if (!isRecord(value)) {
    return { type: "corrupt", line, text, reason: "not a JSON object" };
  }
  if (typeof (value as { type?: unknown }).type !== "string") {
    return { type: "corrupt", line, text, reason: 'no string "type" field' };
  }
  return { type: "record", line, record: value as AuditRecord };
}

/**
 * Yields every line of the audit file at `path`, in order, with its 1-based line number; a missing
 * file yields nothing. It never throws for bad content: a damaged line is a `corrupt` entry, and a
 * last line without its newline (a writer may be mid-append) is parsed like any other.
 */
export async function* readAuditLog(path: string): AsyncGenerator<AuditEntry, void, undefined> {
  const handle = await openIfExists(path);
  if (!handle) return;
  const cursor = newCursor();
  try {
    for await (const line of readCompleteLines(handle, cursor)) {
      const entry = parseAuditLine(line.text, line.number);
      if (entry) yield entry;
    }
  } finally {
    await handle.close();
  }
  if (cursor.partial.length > 0) {
    const entry = parseAuditLine(cursor.partial.toString("utf8"), cursor.line + 1);
    if (entry?.type === "corrupt") entry.reason = `${entry.reason} (the last line has no newline yet)`;
    if (entry) yield entry;
  }
}

/**
 * Follows the audit file at `path` like `tail -f`: yields each complete line appended after this call
 * (or every line, with `fromStart`), polling for growth until `signal` aborts. A file that does not
 * exist yet is waited for; one that shrinks or is replaced is read again from its start.
 */
export function followAuditLog(
  path: string,
  options: FollowAuditLogOptions,
): AsyncGenerator<AuditEntry, void, undefined> {
  // Taken now, not at the first `next()`, so "appended after this call" means exactly that.
  const start = options.fromStart === true ? { size: 0, identity: undefined } : snapshotOf(path);
  return follow(path, start, options);
}

async function* follow(
  path: string,
  start: FileSnapshot,
  options: FollowAuditLogOptions,
): AsyncGenerator<AuditEntry, void, undefined> {
  const { signal } = options;
  const interval = options.pollIntervalMs ?? 200;
  let cursor = newCursor();
  let skipUntil = start.size;
  let identity = start.identity;
  while (!signal.aborted) {
    const handle = await openIfExists(path);
    if (handle) {
      try {
        const stats = await handle.stat();
        const current = `${stats.dev}:${stats.ino}`;
        const replaced = identity !== undefined && identity !== current;
        if (replaced || stats.size < cursor.offset || stats.size < skipUntil) {
          cursor = newCursor();
          skipUntil = 0;
        }
        identity = current;
        for await (const line of readCompleteLines(handle, cursor)) {
          // Lines already there are counted but not yielded, so line numbers still match the file.
          if (line.end <= skipUntil) continue;
          const entry = parseAuditLine(line.text, line.number);
          if (entry) yield entry;
          if (signal.aborted) return;
        }
      } finally {
        await handle.close();
      }
    }
    try {
      await sleep(interval, undefined, { signal });
    } catch {
      return;
    }
  }
}

interface Cursor {
  /** Bytes consumed from the file, the partial line included. */
  offset: number;
  /** Complete lines read so far. */
  line: number;
  /** Bytes of a line whose newline has not arrived yet. */
  partial: Buffer;
}

function newCursor(): Cursor {
  return { offset: 0, line: 0, partial: Buffer.alloc(0) };
}

/** Reads from the cursor to the end of the file, yielding each line that ends in a newline. */
async function* readCompleteLines(
  handle: FileHandle,
  cursor: Cursor,
): AsyncGenerator<{ number: number; text: string; end: number }, void, undefined> {
  const buffer = Buffer.alloc(CHUNK_BYTES);
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, cursor.offset);
    if (bytesRead === 0) return;
    cursor.offset += bytesRead;
    // Lines are split on bytes, then decoded whole, so a multi-byte character across chunks stays intact.
    const chunk = Buffer.concat([cursor.partial, buffer.subarray(0, bytesRead)]);
    let start = 0;
    let end = chunk.indexOf(NEWLINE, start);
    const chunkStart = cursor.offset - chunk.length;
    const lines: { number: number; text: string; end: number }[] = [];
    while (end !== -1) {
      cursor.line += 1;
      lines.push({
        number: cursor.line,
        text: chunk.toString("utf8", start, end).replace(/\r$/, ""),
        end: chunkStart + end + 1,
      });
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    cursor.partial = Buffer.from(chunk.subarray(start));
    yield* lines;
  }
}

interface FileSnapshot {
  size: number;
  /** Device and inode: a different one means the file was replaced. */
  identity: string | undefined;
}

function snapshotOf(path: string): FileSnapshot {
  try {
    const stats = statSync(path);
    return { size: stats.size, identity: `${stats.dev}:${stats.ino}` };
  } catch {
    // Missing (or unreadable, which the first poll reports): everything that appears is new.
    return { size: 0, identity: undefined };
  }
}

/** Opens the audit file for reading if it exists; a link, FIFO or device throws `state_not_regular`, never blocks. */
async function openIfExists(path: string): Promise<FileHandle | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP") throw notRegular(path, error);
    throw error;
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw notRegular(path);
  }
  return handle;
}
