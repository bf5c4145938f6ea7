import { closeSync, constants, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { isRecord } from "@agent/base";
import type { AuditChainHead } from "@agent/store-postgres";
import { STATE_ERROR_CODES, StateError } from "./state-error.js";
import { openRegularStateFile } from "./state-files.js";

/**
 * The file in the state directory holding the newest row of the shared audit trail this machine
 * wrote: outside the database, so `agent audit --verify` notices when that row, or the tail after
 * it, has been removed there.
 */
export const AUDIT_CHECKPOINT_FILE = "audit-checkpoint.json";

/** The checkpoint this machine recorded, if any; a file that is not one is a `state_corrupt` error. */
export function readAuditCheckpoint(stateDir: string): AuditChainHead | undefined {
  const file = join(stateDir, AUDIT_CHECKPOINT_FILE);
  const descriptor = openRegularStateFile(file, constants.O_RDONLY);
  if (descriptor === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(descriptor, "utf8"));
  } catch {
    parsed = undefined;
  } finally {
    closeSync(descriptor);
  }
  if (!isRecord(parsed) || typeof parsed.hash !== "string" || !Number.isSafeInteger(parsed.seq)) {
    throw new StateError(STATE_ERROR_CODES.corrupt, `${file} is not an audit checkpoint; remove it.`, {
      file,
    });
  }
  return { hash: parsed.hash, seq: parsed.seq as number };
}

/**
 * Records `head` as this machine's checkpoint unless it already has a newer one (processes of one
 * machine commit in any order), replacing the file atomically (written aside, 0600, then renamed).
 */
export function writeAuditCheckpoint(stateDir: string, head: AuditChainHead): void {
  const file = join(stateDir, AUDIT_CHECKPOINT_FILE);
  const current = readAuditCheckpoint(stateDir);
  if (current && current.seq >= head.seq) return;
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    const descriptor = openRegularStateFile(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      0o600,
    );
    if (descriptor === undefined) throw new Error("not created");
    try {
      writeSync(descriptor, `${JSON.stringify({ hash: head.hash, seq: head.seq })}\n`);
    } finally {
      closeSync(descriptor);
    }
    renameSync(temporary, file);
  } catch (cause) {
    rmSync(temporary, { force: true });
    throw new StateError(STATE_ERROR_CODES.unavailable, `Cannot write the audit checkpoint ${file}.`, {
      file,
      cause,
    });
  }
}
