import { statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/**
 * Why someone other than the user could change what the cache entry `entryDir` (below `root`)
 * holds, or undefined when no one else can. The cache's own directories (`root` and below, as far
 * as they exist; created 0700) must be the user's and writable by no one else; every directory above
 * `root` must be the user's or root's, and world-writable only with the sticky bit (as /tmp; a
 * group-writable one passes, as a user's private group under umask 002 makes them). Else another
 * local user could plant a manifest and the code a server runs (an `AGENT_CACHE_DIR` in a shared
 * folder), or swap the cache for one of their own.
 */
export function foreignWriterOf(root: string, entryDir: string): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const own = [root];
  for (const part of relative(root, entryDir).split(sep).filter(Boolean))
    own.push(join(own.at(-1) ?? root, part));
  for (const path of own) {
    const stats = statIfExists(path);
    if (!stats) return undefined;
    if (stats.uid !== uid) return `${path} belongs to another user (uid ${stats.uid})`;
    if ((stats.mode & 0o022) !== 0) return `${path} may be written by others (mode ${octal(stats.mode)})`;
  }
  for (let path = dirname(root); ; path = dirname(path)) {
    const stats = statIfExists(path);
    if (stats) {
      if (stats.uid !== uid && stats.uid !== 0) return `${path} belongs to another user (uid ${stats.uid})`;
      if ((stats.mode & 0o002) !== 0 && (stats.mode & 0o1000) === 0) {
        return `${path} may be written by others (mode ${octal(stats.mode)})`;
      }
    }
    if (dirname(path) === path) return undefined;
  }
}

function statIfExists(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, "0");
}
