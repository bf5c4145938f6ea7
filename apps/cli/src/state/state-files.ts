import { assertRegularFileIfPresent, openRegularFile } from "@agent/store-sqlite/file";
import { asStateErrors, STATE_ERROR_CODES, StateError } from "./state-error.js";

/**
 * Opens a file of the state directory only if it is a regular file, with `flags` plus `O_NOFOLLOW`
 * (a symbolic link there is never followed) and `O_NONBLOCK` (a FIFO never blocks the command).
 * Returns the descriptor, or `undefined` when nothing is there and `flags` does not create it.
 * Throws `StateError` (`state_not_regular`) for a link, FIFO, socket, device or directory.
 */
export function openRegularStateFile(path: string, flags: number, mode = 0o600): number | undefined {
  return asStateErrors(() => openRegularFile(path, flags, mode));
}

/** Throws `state_not_regular` unless nothing is at `path` or it is a regular file (checked without following links or blocking). */
export function assertRegularStateFileIfPresent(path: string): void {
  asStateErrors(() => assertRegularFileIfPresent(path));
}

/** The error for a state file that is a symbolic link or not a regular file. */
export function notRegular(path: string, cause?: unknown): StateError {
  return new StateError(
    STATE_ERROR_CODES.notRegular,
    `${path} is a symbolic link or not a regular file; the agent opens only plain files in its state directory and left it untouched. Remove it, or choose another state directory.`,
    { file: path, ...(cause === undefined ? {} : { cause }) },
  );
}
