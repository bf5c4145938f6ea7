import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isRecord } from "@agent/base";
import { findExecutable } from "@agent/policy/bwrap";
import { isSameOrInside } from "../local-tools/index.js";
import { PACKAGE_CACHE_ERROR_CODES, PackageCacheError } from "./package-cache-error.js";
import type { Installation, InstallRequest, PinnedPackage } from "./package-install.js";
import { defaultBinOf } from "./package-runner-command.js";
import { runInstaller } from "./run-installer.js";

/**
 * Installs the command's packages with npm into `request.dir` (a fresh directory): lifecycle scripts
 * off unless allowed, the user's npm configuration (`npm_config_*`, `~/.npmrc`) and network as they
 * are, then reads each package's exact version and integrity from the lockfile npm wrote.
 */
export async function installWithNpm(request: InstallRequest): Promise<Installation> {
  const { command, dir, env } = request;
  const npm = findExecutable("npm", env.PATH);
  if (npm === undefined) {
    throw new PackageCacheError(
      PACKAGE_CACHE_ERROR_CODES.installerMissing,
      `npm is not on PATH: it installs what ${command.runner} would fetch, outside the sandbox; install Node.js with npm, or run the server's executable directly`,
    );
  }
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "agent-package-cache", private: true })}\n`,
  );
  // npm reads a project's .npmrc from the directory it installs in: the server's project's is
  // copied there for the install and removed after it, since the sandbox shows that directory.
  const projectConfig = projectNpmrcOf(request.cwd);
  const installConfig = join(dir, ".npmrc");
  if (projectConfig !== undefined) copyFileSync(projectConfig, installConfig);
  try {
    await runNpmInstall(npm, request);
  } finally {
    rmSync(installConfig, { force: true });
  }
  const locked = readLockfile(dir);
  const packages: PinnedPackage[] = command.packages.map(({ name }) => {
    const entry = locked[`node_modules/${name}`];
    const version = isRecord(entry) && typeof entry.version === "string" ? entry.version : undefined;
    if (version === undefined) {
      throw new PackageCacheError(
        PACKAGE_CACHE_ERROR_CODES.installFailed,
        `npm reported success but ${name} is not in its lockfile`,
      );
    }
    const integrity = isRecord(entry) && typeof entry.integrity === "string" ? entry.integrity : null;
    return { name, version, integrity };
  });
  return {
    packages,
    ...entryOf(
      dir,
      command.packages.map(({ name }) => name),
      command.bin,
    ),
  };
}

function runNpmInstall(npm: string, request: InstallRequest): Promise<void> {
  const { command, dir, env } = request;
  return runInstaller({
    command: npm,
    args: [
      "install",
      "--save-exact",
      "--no-audit",
      "--no-fund",
      "--no-update-notifier",
      // Each fetch is one line on stderr: the progress shown while it installs.
      "--loglevel=http",
      ...(request.refresh ? ["--prefer-online"] : []),
      ...(request.scripts ? [] : ["--ignore-scripts"]),
      ...(command.registry === undefined ? [] : ["--registry", command.registry]),
      ...command.packages.map(({ name, spec }) => `${name}@${spec}`),
    ],
    cwd: dir,
    env,
    ...(request.onLine ? { onLine: request.onLine } : {}),
    signal: request.signal,
  });
}

/**
 * Every `.npmrc` the install of a server run from `cwd` may copy (one per directory from `cwd` up to
 * the root): npm reads it outside the sandbox, with the user's environment, which it expands into
 * any setting (`registry=https://host/${TOKEN}/`). No local tool or sandboxed process may write or
 * create one, or a run could send the user's secrets anywhere on the next install.
 */
export function projectNpmrcPaths(cwd: string): string[] {
  const paths: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    paths.push(join(dir, ".npmrc"));
    if (dirname(dir) === dir) return paths;
  }
}

// The project npx would run in from `cwd`: the nearest directory at or above it with a package.json
// or node_modules (npm's local prefix); its .npmrc, if it has one.
function projectNpmrcOf(cwd: string): string | undefined {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) || existsSync(join(dir, "node_modules"))) {
      const config = join(dir, ".npmrc");
      return existsSync(config) ? config : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

function readLockfile(dir: string): Record<string, unknown> {
  try {
    const lock: unknown = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8"));
    return isRecord(lock) && isRecord(lock.packages) ? lock.packages : {};
  } catch {
    return {};
  }
}

/**
 * The file to run: `bin` among the executables of the installed packages, else the first package's
 * own (its only one, or the one named like the package), as npx picks it.
 */
function entryOf(
  dir: string,
  names: readonly string[],
  bin: string | undefined,
): Pick<Installation, "entry" | "interpreter"> {
  const candidates: { bin: string; file: string }[] = [];
  for (const [index, name] of names.entries()) {
    if (bin === undefined && index > 0) break;
    const root = join(dir, "node_modules", name);
    const manifest: unknown = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    const bins = binsOf(manifest, defaultBinOf({ name, spec: "" }));
    for (const [binName, file] of Object.entries(bins)) {
      const path = resolve(root, file);
      // A bin pointing outside its package is not the package's executable.
      if (isSameOrInside(root, path)) candidates.push({ bin: binName, file: path });
    }
  }
  const wanted = bin ?? defaultBinOf({ name: names[0] ?? "", spec: "" });
  const chosen =
    candidates.find((candidate) => candidate.bin === wanted) ??
    (bin === undefined && candidates.length === 1 ? candidates[0] : undefined);
  if (!chosen) {
    const offered = candidates.map((candidate) => candidate.bin).join(", ") || "none";
    throw new PackageCacheError(
      PACKAGE_CACHE_ERROR_CODES.noExecutable,
      `${names.join(", ")} provide${names.length === 1 ? "s" : ""} no executable ${JSON.stringify(wanted)} (executables: ${offered}); name one with npx -p <package> <executable>`,
    );
  }
  return { entry: chosen.file, interpreter: isNodeScript(chosen.file) ? "node" : undefined };
}

function binsOf(manifest: unknown, packageBin: string): Record<string, string> {
  if (!isRecord(manifest)) return {};
  const { bin } = manifest;
  if (typeof bin === "string") return { [packageBin]: bin };
  if (!isRecord(bin)) return {};
  const bins: Record<string, string> = {};
  for (const [name, file] of Object.entries(bin)) if (typeof file === "string") bins[name] = file;
  return bins;
}

// npx runs a bin through its shebang; a Node script is run by the Node that runs the CLI instead,
// so no `env node` lookup depends on the PATH inside the sandbox.
function isNodeScript(file: string): boolean {
  if (/\.[cm]?js$/.test(file)) return true;
  const head = readFileSync(file, "utf8").slice(0, 200).split("\n")[0] ?? "";
  return head.startsWith("#!") && /\bnode\b/.test(head);
}
