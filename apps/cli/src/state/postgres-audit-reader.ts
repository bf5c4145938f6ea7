import { setTimeout as sleep } from "node:timers/promises";
import { readAuditRecords } from "@agent/store-postgres";
import type { Pool } from "pg";
import { type AuditEntry, parseAuditLine } from "./audit-log-reader.js";

const PAGE = 1000;

/**
 * The shared audit trail, oldest first, as the entries the JSONL reader yields (the row's sequence
 * number stands for the line). With `follow`, keeps polling for rows appended by any machine until
 * `signal` aborts.
 */
export async function* readPostgresAudit(
  pool: Pool,
  options: { follow: boolean; signal: AbortSignal; pollIntervalMs?: number },
): AsyncGenerator<AuditEntry> {
  let afterSeq = 0;
  for (;;) {
    const rows = await readAuditRecords(pool, { afterSeq, limit: PAGE });
    for (const row of rows) {
      afterSeq = row.seq;
      const entry = parseAuditLine(row.record, row.seq);
      if (entry) yield entry;
    }
    if (rows.length === PAGE) continue;
    if (!options.follow || options.signal.aborted) return;
    try {
      await sleep(options.pollIntervalMs ?? 500, undefined, { signal: options.signal });
    } catch {
      return;
    }
  }
}
