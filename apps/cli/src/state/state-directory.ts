import { chmodSync, mkdirSync } from "node:fs";
import { STATE_ERROR_CODES, StateError } from "./state-error.js";

/**
 * Creates the state directory (mode 0700) if it does not exist yet; an existing directory keeps its
 * mode. Call it before anything else writes there (e.g. the audit sink), so the directory is private.
 */
export function ensureStateDirectory(stateDir: string): void {
  try {
    const created = mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    // The umask may have stripped bits from the requested mode; set it exactly.
    if (created !== undefined) chmodSync(stateDir, 0o700);
  } catch (cause) {
    const code = (cause as { code?: unknown }).code;
    throw new StateError(
      STATE_ERROR_CODES.unavailable,
      `Cannot create the state directory ${stateDir} (${typeof code === "string" ? code : "unknown error"}); choose a writable state directory.`,
      { file: stateDir, cause },
    );
  }
}
