// Names kept read-only that do not exist yet (a `.envrc`, a `.git` a process could create for the
// host's next `git status`). A mount needs something to mount on, so the name is reserved: bwrap
// creates an empty directory there on the host and mounts an empty read-only tmpfs over it. It is
// removed again once no sandbox mounts it, if it is still empty.
import { existsSync, readdirSync, readFileSync, rmdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isSameOrInside, realOrSelf } from "./host-paths.js";

/** How {@link namesToReserve} protects names that do not exist. */
export interface Reservations {
  /** Topmost missing components to mount an empty read-only directory on. */
  reserve: string[];
  /** Existing files in the way (a `.git` gitdir file where `.git/config` is asked): kept read-only instead. */
  keep: string[];
}

/**
 * For each of `paths` that does not exist and would lie inside one of `writeRoots` (real paths): its
 * topmost missing component (so `.git` for a missing `.git/config`), or, where a file stands in the
 * way (a worktree's `.git` file), that file, which decides what the name means; deduplicated.
 */
export function namesToReserve(paths: readonly string[], writeRoots: readonly string[]): Reservations {
  const reserve = new Set<string>();
  const keep = new Set<string>();
  const inside = (path: string): boolean =>
    writeRoots.some((root) => root !== path && isSameOrInside(root, path));
  for (const path of paths) {
    let missing = resolve(path);
    if (existsSync(missing)) continue;
    while (!existsSync(dirname(missing)) && dirname(missing) !== missing) missing = dirname(missing);
    const parent = realOrSelf(dirname(missing));
    if (!isDirectory(parent)) {
      if (inside(parent)) keep.add(parent);
      continue;
    }
    const name = join(parent, basename(missing));
    if (inside(name)) reserve.add(name);
  }
  return { reserve: [...reserve], keep: [...keep] };
}

/**
 * Removes each reserved name once its sandbox is gone: only an empty directory (never what someone
 * put there since), and only when no live process still mounts it (another sandbox that found it
 * there), since removing it would detach that sandbox's mount and free the name inside it.
 */
export function releaseReservedNames(names: readonly string[]): void {
  if (names.length === 0) return;
  const mounted = mountPointsInUse();
  for (const name of names) {
    if (mounted.has(name)) continue;
    try {
      if (readdirSync(name).length === 0) rmdirSync(name);
    } catch {
      // Gone already, or no longer a directory: nothing of ours to remove.
    }
  }
}

// Every mount point any process this one can inspect sees (field 5 of mountinfo, octal escapes decoded).
function mountPointsInUse(): Set<string> {
  const points = new Set<string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${entry}/mountinfo`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      const point = line.split(" ")[4];
      if (point)
        points.add(
          point.replace(/\\([0-7]{3})/g, (_, octal: string) =>
            String.fromCharCode(Number.parseInt(octal, 8)),
          ),
        );
    }
  }
  return points;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
