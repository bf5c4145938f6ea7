import { matchesToolPattern } from "@agent/policy";
import { usageError } from "../exit-codes.js";
import type { AuditEntry, AuditRecord } from "../state/index.js";

/** Which audit events `agent audit` shows: `--run`, `--tool`, `--since`, and how many of the last (`--tail`). */
export interface AuditFilter {
  runId?: string | undefined;
  /** A tool name, or a pattern with `*` as in policy rules. */
  tool?: string | undefined;
  /** Only events at or after this instant. */
  since?: Date | undefined;
  /** Only the last N matching events already written (with `--follow`: then the new ones). */
  tail?: number | undefined;
}

const DURATION = /^(\d+)(s|m|h|d|w)$/;
const UNIT_MS: Record<string, number> = Object.freeze({
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
});

/** `--since`: a duration back from `now` (`30s`, `15m`, `2h`, `7d`, `1w`) or a date and time (`2026-12-01T09:00Z`). */
export function parseSince(text: string | undefined, now: number = Date.now()): Date | undefined {
  if (text === undefined) return undefined;
  const duration = DURATION.exec(text);
  if (duration) return new Date(now - Number(duration[1]) * (UNIT_MS[duration[2] ?? "s"] ?? 1_000));
  const time = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (Number.isNaN(time)) {
    throw usageError(
      `--since takes a duration (30s, 15m, 2h, 7d, 1w) or a date and time (2026-12-01T09:00:00Z), got ${JSON.stringify(text)}.`,
    );
  }
  return new Date(time);
}

/** `--tail`: a whole number of events, 0 included (with `--follow`: only new events). */
export function parseTail(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isNaN(value))
    throw usageError(`--tail takes a whole number of events, got ${JSON.stringify(text)}.`);
  return value;
}

/** Whether one audit event passes `--run`, `--tool` and `--since`. */
export function matchesAuditFilter(record: AuditRecord, filter: AuditFilter): boolean {
  if (filter.runId !== undefined && record.runId !== filter.runId) return false;
  if (filter.tool !== undefined) {
    const toolName = record.toolName;
    if (typeof toolName !== "string" || !matchesToolPattern(filter.tool, toolName)) return false;
  }
  if (filter.since !== undefined) {
    const at = typeof record.at === "string" ? Date.parse(record.at) : Number.NaN;
    if (Number.isNaN(at) || at < filter.since.getTime()) return false;
  }
  return true;
}

/**
 * The matching entries of `entries`, and the corrupt-line reports as they come; of those already
 * written (`existing`, counted by a first read) only the last `tail` are kept. A `--follow` stream
 * thus starts at the end unless `tail` asks for more; events written meanwhile count as new.
 */
export async function* filterAuditEntries(
  entries: AsyncIterable<AuditEntry>,
  filter: AuditFilter,
  existing: number,
): AsyncGenerator<AuditEntry> {
  let skip = filter.tail === undefined ? 0 : Math.max(0, existing - filter.tail);
  for await (const entry of entries) {
    if (entry.type !== "record") {
      if (skip === 0) yield entry;
      continue;
    }
    if (!matchesAuditFilter(entry.record, filter)) continue;
    if (skip > 0) {
      skip -= 1;
      continue;
    }
    yield entry;
  }
}

/** How many entries of a finished read match the filter: the "already written" of {@link filterAuditEntries}. */
export async function countMatching(
  entries: AsyncIterable<AuditEntry>,
  filter: AuditFilter,
): Promise<number> {
  let count = 0;
  for await (const entry of entries) {
    if (entry.type === "record" && matchesAuditFilter(entry.record, filter)) count += 1;
  }
  return count;
}
