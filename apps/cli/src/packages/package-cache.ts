import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { messageOf } from "@agent/base";
import type { StdioLaunch } from "@agent/mcp-transport/stdio";
import { type EventSink, emitEvent } from "@agent/tools";
import type { ServerConfig, StdioServerConfig } from "../config/index.js";
import { isSameOrInside } from "../local-tools/index.js";
import { foreignWriterOf } from "./cache-ownership.js";
import { PACKAGE_CACHE_ERROR_CODES, PackageCacheError } from "./package-cache-error.js";
import { installPackages, type PinnedPackage } from "./package-install.js";
import {
  entryDirOf,
  newInstallDirName,
  type PackageManifest,
  readManifest,
  writeManifest,
} from "./package-manifest.js";
import { type PackageRunnerParse, parsePackageRunner } from "./package-runner-command.js";

/** A server's package as the cache holds it: pinned, installed, and the file it runs. */
export interface CachedPackage {
  installer: "npm" | "uv";
  /** The packages as the command asks for them (`name@spec`). */
  requested: string[];
  packages: PinnedPackage[];
  /** Absolute path of the file run. */
  entry: string;
  interpreter: "node" | undefined;
  installedAt: string;
  /** The install the manifest names: mounted read-only into the server's sandbox (and nothing else of the cache). */
  installDir: string;
}

/** What the terminal shows while a package installs; each method must not throw. */
export interface InstallProgress {
  started(server: string, what: string, refresh: boolean): void;
  /** One line the installer wrote (npm: one per fetch). */
  line(server: string, line: string): void;
  finished(
    server: string,
    outcome: { ok: true; installed: CachedPackage } | { ok: false; reason: string },
  ): void;
}

/** Options of {@link createPackageCache}. */
export interface PackageCacheOptions {
  /** The cache's directory (see `packageCacheRoot`): the harness's, never writable by a sandbox or local tool. */
  root: string;
  /** The user's environment: PATH finds npm and uv, and their configuration (registry, proxy) comes from it. */
  env: Readonly<Record<string, string | undefined>>;
  progress: InstallProgress;
  events: EventSink;
}

/**
 * Where package-runner servers' packages come from: installed once, outside the sandbox, into a
 * directory the harness owns, then run from there, read-only and offline, inside it.
 */
export interface PackageCache {
  readonly root: string;
  /** Whether the server's command is a package runner the cache serves (and what it asks for), or why not. */
  planOf(server: StdioServerConfig): PackageRunnerParse;
  /** What the cache holds for the server now, without installing anything. */
  cached(server: StdioServerConfig): CachedPackage | undefined;
  /** The server's package, installed first if the cache has none (once per process, however many ask). */
  ensure(server: StdioServerConfig, signal?: AbortSignal): Promise<CachedPackage>;
  /**
   * Installs, concurrently, the packages the cache lacks of those of `servers` that are package-runner
   * servers (others are skipped); a failure is kept for the server's launch, which then fails with it.
   */
  ensureAll(servers: readonly ServerConfig[], signal?: AbortSignal): Promise<void>;
  /** Resolves and installs the server's packages again; the new install replaces the old only once it succeeded. */
  refresh(server: StdioServerConfig, signal?: AbortSignal): Promise<CachedPackage>;
  /**
   * The paths the server's sandbox must show read-only for its package: the current install (none
   * for other servers, or before one exists). Only that one: an install under way may hold a copy
   * of the project's .npmrc.
   */
  mountsOf(server: StdioServerConfig): string[];
  /**
   * The launch of a package-runner server: its command replaced by the cached executable (installed
   * first if need be), then handed to `next` (the sandbox). Other servers' launch is `next` itself.
   */
  launchOf(server: StdioServerConfig, next: StdioLaunch | undefined): StdioLaunch | undefined;
}

/** Builds the {@link PackageCache} over `options.root`; nothing is created until something installs. */
export function createPackageCache(options: PackageCacheOptions): PackageCache {
  const { root, env, progress, events } = options;
  const installing = new Map<string, Promise<CachedPackage>>();

  const commandOf = (server: StdioServerConfig) => {
    const plan = parsePackageRunner(server.command, server.args);
    if (plan.kind === "package") return plan.command;
    throw new PackageCacheError(
      PACKAGE_CACHE_ERROR_CODES.unsupportedCommand,
      plan.kind === "unsupported"
        ? `${plan.runner} cannot be served from the package cache: ${plan.reason}`
        : `server "${server.name}" is not started through npx, npm exec, uvx or uv tool run`,
    );
  };
  const dirOf = (server: StdioServerConfig): string =>
    entryDirOf(root, commandOf(server), server.installScripts === true);
  const cached = (server: StdioServerConfig): CachedPackage | undefined => {
    if (parsePackageRunner(server.command, server.args).kind !== "package") return undefined;
    const dir = dirOf(server);
    // Another user's manifest is not read: the install that follows says why it cannot go on.
    if (foreignWriterOf(root, dir) !== undefined) return undefined;
    const manifest = readManifest(dir);
    try {
      return manifest ? fromManifest(dir, manifest) : undefined;
    } catch {
      // A manifest pointing outside its install is not trusted: the package is installed again.
      return undefined;
    }
  };

  const install = async (
    server: StdioServerConfig,
    refresh: boolean,
    signal: AbortSignal | undefined,
  ): Promise<CachedPackage> => {
    const command = commandOf(server);
    const dir = dirOf(server);
    const requested = command.packages.map(({ name, spec }) => `${name}@${spec}`);
    const started = performance.now();
    progress.started(server.name, requested.join(" "), refresh);
    const installName = newInstallDirName();
    const installDir = join(dir, installName);
    try {
      const foreign = foreignWriterOf(root, dir);
      if (foreign !== undefined) {
        throw new PackageCacheError(
          PACKAGE_CACHE_ERROR_CODES.cacheNotOwn,
          `the package cache is not yours alone: ${foreign}; nothing in it is run or installed. Point AGENT_CACHE_DIR at a directory only you can write`,
        );
      }
      mkdirSync(installDir, { recursive: true, mode: 0o700 });
      const installation = await installPackages({
        command,
        dir: installDir,
        cwd: server.cwd,
        env,
        scripts: server.installScripts === true,
        refresh,
        onLine: (line) => progress.line(server.name, line),
        signal,
      });
      const manifest: PackageManifest = {
        version: 1,
        installer: command.installer,
        requested,
        packages: installation.packages,
        installDir: installName,
        entry: relative(dir, installation.entry),
        interpreter: installation.interpreter ?? null,
        installedAt: new Date().toISOString(),
      };
      const previous = readManifest(dir)?.installDir;
      writeManifest(dir, manifest);
      removeOtherInstalls(dir, [installName, ...(previous === undefined ? [] : [previous])]);
      const installed = fromManifest(dir, manifest);
      emitEvent(events, {
        type: "package_install",
        server: server.name,
        installer: command.installer,
        refresh,
        ok: true,
        packages: installed.packages,
        durationMs: Math.round(performance.now() - started),
      });
      progress.finished(server.name, { ok: true, installed });
      return installed;
    } catch (error) {
      rmSync(installDir, { recursive: true, force: true });
      const failure = PackageCacheError.isInstance(error)
        ? error
        : new PackageCacheError(PACKAGE_CACHE_ERROR_CODES.installFailed, messageOf(error), { cause: error });
      emitEvent(events, {
        type: "package_install",
        server: server.name,
        installer: command.installer,
        refresh,
        ok: false,
        code: failure.code,
        packages: [],
        durationMs: Math.round(performance.now() - started),
      });
      progress.finished(server.name, { ok: false, reason: failure.message });
      throw failure;
    }
  };

  // One install (or refresh) per entry and process: concurrent starts of the same server share it,
  // and a failed one is not tried again by the server's launch right after.
  const once = (
    server: StdioServerConfig,
    refresh: boolean,
    signal?: AbortSignal,
  ): Promise<CachedPackage> => {
    const key = `${refresh ? "refresh" : "install"} ${dirOf(server)}`;
    const running = installing.get(key);
    if (running) return running;
    const promise = install(server, refresh, signal);
    installing.set(key, promise);
    return promise;
  };

  const ensure = async (server: StdioServerConfig, signal?: AbortSignal): Promise<CachedPackage> => {
    const present = cached(server);
    if (present && existsSync(present.entry)) return present;
    return once(server, false, signal);
  };

  return {
    root,
    planOf: (server) => parsePackageRunner(server.command, server.args),
    cached,
    ensure,
    async ensureAll(servers, signal) {
      const served = servers.filter(
        (server): server is StdioServerConfig =>
          server.type === "stdio" &&
          !server.missingVariables &&
          parsePackageRunner(server.command, server.args).kind === "package",
      );
      await Promise.all(
        served.map((server) =>
          ensure(server, signal).catch(() => {
            // Kept by `once`: the server's launch fails with the same error.
          }),
        ),
      );
    },
    refresh: (server, signal) => once(server, true, signal),
    mountsOf(server) {
      const present = cached(server);
      return present ? [present.installDir] : [];
    },
    launchOf(server, next) {
      const plan = parsePackageRunner(server.command, server.args);
      if (plan.kind !== "package") return next;
      const { args } = plan.command;
      return async (spec) => {
        const installed = await ensure(server);
        const rewritten =
          installed.interpreter === "node"
            ? { ...spec, command: process.execPath, args: [installed.entry, ...args] }
            : { ...spec, command: installed.entry, args: [...args] };
        return next ? next(rewritten) : rewritten;
      };
    },
  };
}

/** What listings show of a cached package: what was asked for, what is pinned, when (no paths). */
export function packageSummaryOf(cached: CachedPackage): {
  installer: "npm" | "uv";
  requested: string[];
  packages: PinnedPackage[];
  installedAt: string;
} {
  const { installer, requested, packages, installedAt } = cached;
  return { installer, requested, packages, installedAt };
}

function fromManifest(dir: string, manifest: PackageManifest): CachedPackage {
  const entry = resolve(dir, manifest.entry);
  const installDir = join(dir, manifest.installDir);
  if (!isSameOrInside(installDir, entry)) {
    throw new PackageCacheError(
      PACKAGE_CACHE_ERROR_CODES.noExecutable,
      `the package cache's manifest in ${dir} points outside its install; refresh the server`,
    );
  }
  return {
    installer: manifest.installer,
    requested: manifest.requested,
    packages: manifest.packages,
    entry,
    interpreter: manifest.interpreter ?? undefined,
    installedAt: manifest.installedAt,
    installDir,
  };
}

// Installs older than the one just replaced, and ones a failed or interrupted run left. The one just
// replaced stays until the next install: another agent process may still be running from it.
function removeOtherInstalls(dir: string, kept: readonly string[]): void {
  for (const name of readdirSync(dir)) {
    if (name.startsWith("install-") && !kept.includes(name))
      rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/**
 * The package cache's directory: `$AGENT_CACHE_DIR/packages`, else `$XDG_CACHE_HOME/agent/packages`,
 * else `~/.cache/agent/packages`. Outside the workspace and the state directory on purpose: the
 * sandbox hides the state directory, and this one it must show (read-only).
 */
export function packageCacheRoot(env: Readonly<Record<string, string | undefined>>, home: string): string {
  if (env.AGENT_CACHE_DIR) return resolve(env.AGENT_CACHE_DIR, "packages");
  if (env.XDG_CACHE_HOME) return resolve(env.XDG_CACHE_HOME, "agent", "packages");
  return join(home, ".cache", "agent", "packages");
}
