import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { STORE_SQLITE_ERROR_CODES, StoreSqliteError } from "../errors.js";

/**
 * Opens `path` only if it is a regular file, with `flags` plus `O_NOFOLLOW` (a symbolic link there is
 * never followed) and `O_NONBLOCK` (a FIFO never blocks the caller). Returns the descriptor, or
 * `undefined` when nothing is there and `flags` does not create it. Throws `StoreSqliteError`
 * (`store_not_regular`) for a link, FIFO, socket, device or directory; other failures as Node threw them.
 */
export function openRegularFile(path: string, flags: number, mode = 0o600): number | undefined {
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

/** Throws `store_not_regular` unless nothing is at `path` or it is a regular file (checked without following links or blocking). */
export function assertRegularFileIfPresent(path: string): void {
  const fd = openRegularFile(path, constants.O_RDONLY);
  if (fd !== undefined) closeSync(fd);
}

function notRegular(path: string, cause?: unknown): StoreSqliteError {
  return new StoreSqliteError(
    STORE_SQLITE_ERROR_CODES.notRegular,
    `${path} is a symbolic link or not a regular file; only plain files are opened here, and it was left untouched. Remove it, or choose another place.`,
    { file: path, ...(cause === undefined ? {} : { cause }) },
  );
}
