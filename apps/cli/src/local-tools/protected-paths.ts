import { lstatSync, readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * What the harness keeps from every local tool (and every sandboxed process): its own configuration
 * file, its state directory (database, audit trail, tokens, everything in it) and whatever the
 * configuration names as secret. Paths are absolute; a directory protects everything below it.
 */
export interface ProtectedPaths {
  /** The configuration file the gate's policy comes from. */
  configFile: string;
  /** The state directory: the SQLite database, the audit trail and any other file in it. */
  stateDir: string;
  /** Files or directories the configuration names as secret (`protectedPaths`). */
  secretPaths: readonly string[];
  /**
   * Files configured servers run from (real paths): they stay readable, but no local tool writes
   * them and sandboxed processes see them read-only, since their code runs with a server's secrets.
   */
  launchFiles?: readonly string[];
  /**
   * Paths whose contents the host runs later (`.git/config`, `.git/hooks`, `.envrc`), existing or
   * not: readable, but no local tool writes or creates them, nor anything at or below them.
   */
  hostRunPaths?: readonly string[];
}

/** The most entries of a protected directory looked at for hard links, so a huge one cannot stall a call. */
const MAX_SCANNED_ENTRIES = 4096;

/** How deep below a protected directory files are looked at for hard links. */
const MAX_SCANNED_DEPTH = 3;

/**
 * Every path of `paths` as configured and, where it differs, as its real path (symbolic links
 * resolved), deduplicated: what a sandbox must hide or mount read-only, and what a path check compares
 * against. Paths that do not exist yet are listed as configured.
 */
export function listProtectedPaths(paths: ProtectedPaths): string[] {
  const listed = new Set<string>();
  for (const path of [paths.configFile, paths.stateDir, ...paths.secretPaths]) {
    const absolute = resolve(path);
    listed.add(absolute);
    const real = realPathOf(absolute);
    if (real !== undefined) listed.add(real);
  }
  return [...listed];
}

/**
 * The protected paths as they are now: their paths, and the device and inode of each of them and of
 * the files inside protected directories, so a hard link or a bind mount to one is recognised too.
 */
export class ProtectedSet {
  readonly #paths: readonly string[];
  readonly #identities: ReadonlySet<string>;

  private constructor(paths: readonly string[], identities: ReadonlySet<string>) {
    this.#paths = paths;
    this.#identities = identities;
  }

  /** Takes a snapshot of `paths` now; cheap enough to take once per tool call. */
  static capture(paths: ProtectedPaths | undefined): ProtectedSet {
    if (!paths) return new ProtectedSet([], new Set());
    const listed = listProtectedPaths(paths);
    const identities = new Set<string>();
    let budget = MAX_SCANNED_ENTRIES;
    const scan = (path: string, depth: number): void => {
      let stats: Stats;
      try {
        stats = statSync(path);
      } catch {
        return;
      }
      identities.add(identityOf(stats));
      if (!stats.isDirectory() || depth >= MAX_SCANNED_DEPTH) return;
      let names: string[];
      try {
        names = readdirSync(path);
      } catch {
        return;
      }
      for (const name of names) {
        if (budget <= 0) return;
        budget -= 1;
        scan(join(path, name), depth + 1);
      }
    };
    for (const path of listed) scan(path, 0);
    return new ProtectedSet(listed, identities);
  }

  /** Whether `path` (absolute) is a protected path or lies below one. */
  covers(path: string): boolean {
    return this.#paths.some((protectedPath) => isSameOrInside(protectedPath, path));
  }

  /** Whether `stats` (of something opened or looked at) is a protected file or directory, by device and inode. */
  holds(stats: Pick<Stats, "dev" | "ino">): boolean {
    return this.#identities.has(identityOf(stats));
  }

  /** Whether `path`, or what is at it now (a hard link, a symbolic link to it), is protected. */
  guards(path: string): boolean {
    if (this.covers(path)) return true;
    for (const look of [lstatSync, statSync]) {
      try {
        if (this.holds(look(path))) return true;
      } catch {
        // Nothing there (or a dangling link): nothing protected is reached through it.
      }
    }
    return false;
  }
}

/**
 * Whether writing a file at `target` (absolute, real) would change what the host runs: it is a
 * host-run path or lies below one, or lies above one (a file named `.git` redefines `.git/config`).
 */
export function touchesHostRunPath(hostRunPaths: readonly string[], target: string): boolean {
  return hostRunPaths.some((path) => isSameOrInside(path, target) || isSameOrInside(target, path));
}

/** Whether `path` is `root` or lies below it (both absolute). */
export function isSameOrInside(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest === "" || (!isAbsolute(rest) && rest !== ".." && !rest.startsWith(`..${sep}`));
}

function identityOf(stats: Pick<Stats, "dev" | "ino">): string {
  return `${stats.dev}:${stats.ino}`;
}

/** The real path of `path`; for one that does not exist yet, its nearest existing ancestor's real path plus the rest. */
export function realPathOf(path: string): string | undefined {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(realpathSync(current), ...missing);
    } catch {
      const parent = dirname(current);
      if (parent === current) return undefined;
      missing.unshift(basename(current));
      current = parent;
    }
  }
}
