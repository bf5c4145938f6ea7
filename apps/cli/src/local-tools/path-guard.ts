import { randomUUID } from "node:crypto";
import { constants, existsSync, realpathSync, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, rename, rm } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { isSameOrInside, type ProtectedPaths, ProtectedSet, touchesHostRunPath } from "./protected-paths.js";
import { resolveWorkspacePath } from "./workspace-paths.js";

// Confinement is checked on what was opened, not on the path that was checked: every component is
// opened relative to the descriptor of its verified parent, without following links (through the
// /proc/self/fd magic links, Node's stand-in for openat), and each descriptor's real path and
// device/inode are checked before a byte is read or written. A racing process that swaps any
// component for a symbolic link makes the call fail; it never makes it leave the workspace.

/** Why a path was refused for safety (each is audited); other refusals are ordinary errors. */
export const PATH_REFUSAL_CODES = {
  outsideWorkspace: "outside_workspace",
  protectedPath: "protected_path",
  changed: "path_changed",
  unsupported: "unsupported_platform",
} as const;

/** A code of {@link PATH_REFUSAL_CODES}. */
export type PathRefusalCode = (typeof PATH_REFUSAL_CODES)[keyof typeof PATH_REFUSAL_CODES];

/** A refused path: why (a stable code) and a sentence for the model or the operator. */
export interface PathRefusal {
  ok: false;
  code: PathRefusalCode | "missing" | "not_a_directory" | "is_directory" | "not_regular";
  message: string;
}

/** Something opened inside the workspace and verified; the caller closes `handle`. */
export interface OpenedPath {
  ok: true;
  handle: FileHandle;
  stats: Stats;
  /** Its real path when it was verified. */
  real: string;
  /** Relative to the workspace root, `/`-separated; `.` for the root. */
  relative: string;
}

/** A file written by {@link PathGuard.writeFile}. */
export interface WrittenFile {
  ok: true;
  relative: string;
  created: boolean;
}

/** Options of {@link PathGuard.writeFile}. */
export interface GuardedWriteOptions {
  createDirectories: boolean;
  signal: AbortSignal;
}

const PROC_FD = "/proc/self/fd";
const DIRECTORY_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/**
 * The one check every local tool that takes a path goes through (read_file, list_directory,
 * write_file, and commands that run in a directory): the path must stay inside the workspace root,
 * as written, once links are resolved and as actually opened, and must not be (or be a hard link
 * to, or lie below) a protected path. Needs Linux's /proc; elsewhere every path is refused.
 */
export class PathGuard {
  /** The workspace root (absolute; pinned by its real path when the caller resolved it). */
  readonly workspaceRoot: string;
  readonly #alias: string | undefined;
  readonly #protectedPaths: ProtectedPaths | undefined;

  /**
   * `alias`: the root as configured, when it differs from `workspaceRoot` (a symbolic link to it);
   * absolute paths written under the alias are read as paths under the root, never re-resolved.
   */
  constructor(options: {
    workspaceRoot: string;
    alias?: string | undefined;
    protectedPaths?: ProtectedPaths | undefined;
  }) {
    this.workspaceRoot = options.workspaceRoot;
    this.#alias = options.alias === options.workspaceRoot ? undefined : options.alias;
    this.#protectedPaths = options.protectedPaths;
  }

  /**
   * Resolves `requested` and checks it without opening it: inside the root, not protected. For a
   * command's working directory or a display; anything that reads or writes uses the open methods.
   */
  async check(requested: string): Promise<{ ok: true; absolute: string; relative: string } | PathRefusal> {
    const resolved = await resolveWorkspacePath(this.workspaceRoot, this.#unalias(requested));
    if (!resolved.ok) return refusal("outside_workspace", resolved.message);
    if (this.protectedSet().guards(resolved.path.absolute)) return protectedRefusal(requested);
    return { ok: true, absolute: resolved.path.absolute, relative: resolved.path.relative };
  }

  /** Opens an existing file or directory for reading (never following a link, never blocking on a FIFO) and verifies it. */
  async openForReading(requested: string): Promise<OpenedPath | PathRefusal> {
    const located = await this.#locate(requested);
    if (!located.ok) return located;
    if (!located.exists) return refusal("missing", `Nothing exists at ${JSON.stringify(located.relative)}.`);
    const { components } = located;
    const name = components.at(-1);
    const parent = await this.#walk(requested, components.slice(0, -1), false);
    if (!parent.ok) return parent;
    if (name === undefined) return this.#verified(requested, parent.handle, located.relative, located.set);
    const inParent = join(PROC_FD, String(parent.handle.fd), name);
    const kind = await lstatIfExists(inParent);
    // Looked at before opening: opening a FIFO or a device could block or have side effects.
    if (kind && !kind.isFile() && !kind.isDirectory()) {
      await parent.handle.close();
      if (kind.isSymbolicLink()) return changedRefusal(requested);
      return refusal(
        "not_regular",
        `${JSON.stringify(located.relative)} is not a regular file or a directory.`,
      );
    }
    let handle: FileHandle;
    try {
      // O_NONBLOCK: a FIFO swapped in opens at once instead of waiting for a writer; it is refused below.
      handle = await open(inParent, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      return openFailure(requested, error);
    } finally {
      await parent.handle.close();
    }
    return this.#verified(requested, handle, located.relative, located.set);
  }

  /**
   * Replaces or creates a file atomically: a new temporary file is created inside the verified
   * directory descriptor, verified, written, and renamed over the target within that directory.
   */
  async writeFile(
    requested: string,
    content: string,
    options: GuardedWriteOptions,
  ): Promise<WrittenFile | PathRefusal> {
    const located = await this.#locate(requested);
    if (!located.ok) return located;
    const { components, set } = located;
    const name = components.at(-1);
    if (name === undefined) return refusal("is_directory", "The workspace root is a directory.");
    if (!located.exists && located.missing > 1 && !options.createDirectories) {
      return refusal(
        "missing",
        `The directory of ${JSON.stringify(located.relative)} does not exist; pass createDirectories: true to create it.`,
      );
    }
    // Checked before any directory is created, and again below on what was opened.
    const hostRunPaths = this.#protectedPaths?.hostRunPaths ?? [];
    if (touchesHostRunPath(hostRunPaths, join(realpathSync(this.workspaceRoot), ...components))) {
      return hostRunRefusal(requested);
    }
    const parent = await this.#walk(requested, components.slice(0, -1), options.createDirectories);
    if (!parent.ok) return parent;
    const directory = parent.handle;
    try {
      const verified = await this.#verified(requested, directory, located.relative, set, false);
      if (!verified.ok) return verified;
      const inDirectory = (entry: string) => join(PROC_FD, String(directory.fd), entry);
      const target = join(verified.real, name);
      if (set.covers(target)) return protectedRefusal(requested);
      if (this.#protectedPaths?.launchFiles?.includes(target)) return launchFileRefusal(requested);
      if (touchesHostRunPath(hostRunPaths, target)) return hostRunRefusal(requested);
      let mode: number | undefined;
      const existing = await lstatIfExists(inDirectory(name));
      if (existing) {
        if (set.holds(existing)) return protectedRefusal(requested);
        if (existing.isSymbolicLink()) return changedRefusal(requested);
        if (existing.isDirectory()) {
          return refusal("is_directory", `${JSON.stringify(located.relative)} is a directory.`);
        }
        if (!existing.isFile()) {
          return refusal("not_regular", `${JSON.stringify(located.relative)} is not a regular file.`);
        }
        mode = existing.mode & 0o7777;
      }
      options.signal.throwIfAborted();
      const temporary = `.${name}.${randomUUID().slice(0, 8)}.tmp`;
      const handle = await open(
        inDirectory(temporary),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        mode ?? 0o666,
      );
      let closed = false;
      let renamed = false;
      try {
        const created = await this.#verified(requested, handle, located.relative, set, false);
        if (!created.ok) return created;
        if (!isSameOrInside(verified.real, created.real)) return changedRefusal(requested);
        await handle.writeFile(content, "utf8");
        // The umask may have narrowed the mode; an existing file keeps exactly the mode it had.
        if (mode !== undefined) await handle.chmod(mode);
        await handle.sync();
        closed = true;
        await handle.close();
        options.signal.throwIfAborted();
        await rename(inDirectory(temporary), inDirectory(name));
        renamed = true;
      } finally {
        if (!closed) await handle.close().catch(() => undefined);
        if (!renamed) await rm(inDirectory(temporary), { force: true });
      }
      return { ok: true, relative: located.relative, created: existing === undefined };
    } finally {
      await directory.close();
    }
  }

  /** Where `requested` leads, as components below the real root, checked against the protected set. */
  async #locate(requested: string): Promise<
    | {
        ok: true;
        components: string[];
        relative: string;
        exists: boolean;
        missing: number;
        set: ProtectedSet;
      }
    | PathRefusal
  > {
    if (!existsSync(PROC_FD)) {
      return refusal(
        "unsupported_platform",
        "Local file tools need Linux's /proc to verify what they open; they are unavailable here.",
      );
    }
    const resolved = await resolveWorkspacePath(this.workspaceRoot, this.#unalias(requested));
    if (!resolved.ok) return refusal("outside_workspace", resolved.message);
    const set = ProtectedSet.capture(this.#protectedPaths);
    const { path } = resolved;
    if (set.covers(path.absolute)) return protectedRefusal(requested);
    const rest = path.relative === "." ? [] : path.relative.split("/");
    return {
      ok: true,
      components: rest,
      relative: path.relative,
      exists: path.exists,
      missing: path.missingComponents,
      set,
    };
  }

  /**
   * Opens the root, then each directory component relative to its parent's descriptor without
   * following links (creating missing ones when asked); returns the last directory's descriptor.
   */
  async #walk(
    requested: string,
    components: string[],
    create: boolean,
  ): Promise<{ ok: true; handle: FileHandle } | PathRefusal> {
    const realRoot = realpathSync(this.workspaceRoot);
    let current = await open(realRoot, DIRECTORY_FLAGS);
    try {
      if (realpathSync(join(PROC_FD, String(current.fd))) !== realRoot) {
        await current.close();
        return changedRefusal(requested);
      }
      for (const component of components) {
        const path = join(PROC_FD, String(current.fd), component);
        if (create) {
          // 0o777 minus the umask, as mkdir(1) does; EEXIST (made meanwhile) is checked by the open below.
          await mkdir(path).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== "EEXIST") throw error;
          });
        }
        let next: FileHandle;
        try {
          next = await open(path, DIRECTORY_FLAGS);
        } catch (error) {
          const failure = await directoryFailure(requested, path, error);
          await current.close();
          return failure;
        }
        await current.close();
        current = next;
      }
      return { ok: true, handle: current };
    } catch (error) {
      await current.close().catch(() => undefined);
      throw error;
    }
  }

  /** Checks an opened descriptor: inside the real root, not protected. Closes it when refusing, if asked. */
  async #verified(
    requested: string,
    handle: FileHandle,
    relativePath: string,
    set: ProtectedSet,
    closeOnRefusal = true,
  ): Promise<OpenedPath | PathRefusal> {
    const stats = await handle.stat();
    let real: string;
    try {
      real = realpathSync(join(PROC_FD, String(handle.fd)));
    } catch {
      real = "";
    }
    const realRoot = realpathSync(this.workspaceRoot);
    let failure: PathRefusal | undefined;
    if (real === "" || !isSameOrInside(realRoot, real)) failure = changedRefusal(requested);
    else if (set.covers(real) || set.holds(stats)) failure = protectedRefusal(requested);
    if (failure) {
      if (closeOnRefusal) await handle.close();
      return failure;
    }
    const shown = relative(realRoot, real).split(sep).join("/");
    return { ok: true, handle, stats, real, relative: shown === "" ? relativePath : shown };
  }

  /** An absolute path under the configured alias of the root, as the same path under the root. */
  #unalias(requested: string): string {
    if (this.#alias === undefined || !isAbsolute(requested)) return requested;
    const lexical = resolve(requested);
    if (!isSameOrInside(this.#alias, lexical)) return requested;
    return join(this.workspaceRoot, relative(this.#alias, lexical));
  }

  /** A snapshot of the protected paths as they are now. */
  protectedSet(): ProtectedSet {
    return ProtectedSet.capture(this.#protectedPaths);
  }
}

function refusal(code: PathRefusal["code"], message: string): PathRefusal {
  return { ok: false, code, message };
}

function protectedRefusal(requested: string): PathRefusal {
  return refusal(
    "protected_path",
    `Refused path ${JSON.stringify(requested)}: it is the agent's own configuration, its state directory (approvals, audit trail, tokens) or a path the configuration protects; no local tool may read or write it.`,
  );
}

function launchFileRefusal(requested: string): PathRefusal {
  return refusal(
    "protected_path",
    `Refused to write ${JSON.stringify(requested)}: a configured MCP server runs from it, and what it holds would run with that server's secrets; no local tool may write it.`,
  );
}

function hostRunRefusal(requested: string): PathRefusal {
  return refusal(
    "protected_path",
    `Refused to write ${JSON.stringify(requested)}: the host runs what is there later (git's config or hooks, .envrc, editor tasks), outside every sandbox; no local tool may write or create it. If this is intended, the configuration's hostRunPaths decides what is kept.`,
  );
}

function changedRefusal(requested: string): PathRefusal {
  return refusal(
    "path_changed",
    `Refused path ${JSON.stringify(requested)}: it changed while being opened (a component was replaced, e.g. by a symbolic link leading out of the workspace); nothing was read or written.`,
  );
}

async function lstatIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

function openFailure(requested: string, error: unknown): PathRefusal {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ELOOP") return changedRefusal(requested);
  if (code === "ENOENT")
    return refusal("missing", `Nothing exists at ${JSON.stringify(requested)} any more.`);
  throw error;
}

async function directoryFailure(requested: string, path: string, error: unknown): Promise<PathRefusal> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT")
    return refusal("missing", `The directory of ${JSON.stringify(requested)} does not exist.`);
  if (code !== "ELOOP" && code !== "ENOTDIR") throw error;
  const stats = await lstatIfExists(path);
  if (stats && !stats.isSymbolicLink()) {
    return refusal("not_a_directory", `A component of ${JSON.stringify(requested)} is not a directory.`);
  }
  return changedRefusal(requested);
}

/** Whether a refusal is one of {@link PATH_REFUSAL_CODES} (a safety refusal, audited) rather than an ordinary error. */
export function isSafetyRefusal(refusal: PathRefusal): refusal is PathRefusal & { code: PathRefusalCode } {
  return (Object.values(PATH_REFUSAL_CODES) as string[]).includes(refusal.code);
}
