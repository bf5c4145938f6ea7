// Names kept read-only that do not exist yet (a `.envrc`, a `.git` a process could create for the
// host's next `git status`). A mount needs something to mount on, so the name is reserved: bwrap
// creates an empty directory there on the host and mounts an empty read-only tmpfs over it. It is
// removed again once no sandbox mounts it, if it is still empty.
import { existsSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { isSameOrInside, realOrSelf } from "./host-paths.js";

/**
 * For each of `paths` that does not exist and would lie inside one of `writeRoots` (real paths): its
 * topmost missing component (so `.git` for a missing `.git/config`), deduplicated.
 */
export function namesToReserve(paths: readonly string[], writeRoots: readonly string[]): string[] {
  const reserved = new Set<string>();
  for (const path of paths) {
    let missing = resolve(path);
    if (existsSync(missing)) continue;
    while (!existsSync(dirname(missing)) && dirname(missing) !== missing) missing = dirname(missing);
    const name = join(realOrSelf(dirname(missing)), basename(missing));
    if (writeRoots.some((root) => root !== name && isSameOrInside(root, name))) reserved.add(name);
  }
  return [...reserved];
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
