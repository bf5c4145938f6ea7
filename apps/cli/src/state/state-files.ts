import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { STATE_ERROR_CODES, StateError } from "./state-error.js";

/**
 * Opens a file of the state directory only if it is a regular file, with `flags` plus `O_NOFOLLOW`
 * (a symbolic link there is never followed) and `O_NONBLOCK` (a FIFO never blocks the command).
 * Returns the descriptor, or `undefined` when nothing is there and `flags` does not create it.
 * Throws `StateError` (`state_not_regular`) for a link, FIFO, socket, device or directory.
 */
export function openRegularStateFile(path: string, flags: number, mode = 0o600): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && (flags & constants.O_CREAT) === 0) return undefined;
    if (code === "ELOOP" || code === "ENXIO" || code === "EISDIR") throw notRegular(path, cause);
    throw cause;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw notRegular(path);
  }
  return fd;
}

/** Throws `state_not_regular` unless nothing is at `path` or it is a regular file (checked without following links or blocking). */
export function assertRegularStateFileIfPresent(path: string): void {
  const fd = openRegularStateFile(path, constants.O_RDONLY);
  if (fd !== undefined) closeSync(fd);
}

/** The error for a state file that is a symbolic link or not a regular file. */
export function notRegular(path: string, cause?: unknown): StateError {
  return new StateError(
    STATE_ERROR_CODES.notRegular,
    `${path} is a symbolic link or not a regular file; the agent opens only plain files in its state directory and left it untouched. Remove it, or choose another state directory.`,
    { file: path, ...(cause === undefined ? {} : { cause }) },
  );
}
