import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { isSameOrInside } from "./protected-paths.js";

/** A path admitted into the workspace: its real location, with every symbolic link resolved. */
export interface WorkspacePath {
  /** Absolute real path: the existing part has no symbolic links left in it. */
  absolute: string;
  /** The path relative to the workspace root, `/`-separated; `.` for the root itself. */
  relative: string;
  /** Whether something exists there now. */
  exists: boolean;
  /** How many trailing components do not exist yet (0 when `exists`). */
  missingComponents: number;
}

/** The outcome of {@link resolveWorkspacePath}: an admitted path, or why it was refused. */
export type WorkspacePathResult = { ok: true; path: WorkspacePath } | { ok: false; message: string };

/**
 * Admits `requested` (relative to `workspaceRoot`, or absolute) only if it stays inside the root both
 * as written and once symbolic links are resolved: the target's real path, or for a path that does
 * not exist yet its nearest existing ancestor's, must be the root or below it. A dangling link is
 * refused, since where it would lead cannot be checked.
 */
export async function resolveWorkspacePath(
  workspaceRoot: string,
  requested: string,
): Promise<WorkspacePathResult> {
  if (requested.includes("\0")) return refuse(requested, "it contains a NUL character");
  let realRoot: string;
  try {
    realRoot = await realpath(workspaceRoot);
  } catch {
    return { ok: false, message: `The workspace root ${workspaceRoot} does not exist or cannot be read.` };
  }
  const lexical = resolve(workspaceRoot, requested);
  // The root may be named as configured or by its real path (they differ when it sits behind a link).
  let candidate: string;
  if (isInside(workspaceRoot, lexical)) {
    candidate = join(realRoot, relative(resolve(workspaceRoot), lexical));
  } else if (isInside(realRoot, lexical)) {
    candidate = lexical;
  } else {
    return refuse(
      requested,
      "it is outside the workspace root; use a path relative to the root, without '..' leading out of it",
    );
  }

  const missing: string[] = [];
  let existing = candidate;
  while (!(await exists(existing))) {
    missing.unshift(basename(existing));
    existing = dirname(existing);
  }
  let realExisting: string;
  try {
    realExisting = await realpath(existing);
  } catch {
    return refuse(requested, "it goes through a symbolic link whose target does not exist");
  }
  if (!isInside(realRoot, realExisting)) {
    return refuse(requested, "a symbolic link in it leads outside the workspace root");
  }
  const absolute = join(realExisting, ...missing);
  const relativePath = relative(realRoot, absolute).split(sep).join("/");
  return {
    ok: true,
    path: {
      absolute,
      relative: relativePath === "" ? "." : relativePath,
      exists: missing.length === 0,
      missingComponents: missing.length,
    },
  };
}

function refuse(requested: string, reason: string): WorkspacePathResult {
  return { ok: false, message: `Refused path ${JSON.stringify(requested)}: ${reason}.` };
}

function isInside(root: string, path: string): boolean {
  return isSameOrInside(resolve(root), path);
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a component is a file; the walk continues up to it, and using it as a directory fails later.
    if (code === "ENOENT" || code === "ENOTDIR") return false;
    throw error;
  }
}
