import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { findExecutable } from "@agent/policy/bwrap";
import { PACKAGE_CACHE_ERROR_CODES, PackageCacheError } from "./package-cache-error.js";
import type { Installation, InstallRequest, PinnedPackage } from "./package-install.js";
import { defaultBinOf, type PackageRequest } from "./package-runner-command.js";
import { runInstaller } from "./run-installer.js";

/**
 * Installs the command's packages with `uv tool install` into `request.dir`: the tool's virtual
 * environment under `tools/`, its executables under `bin/`, on a system Python (one the sandbox can
 * see; uv's own Pythons live in the hidden home). uv records no integrity; the version is read from
 * the installed distribution's metadata directory.
 */
export async function installWithUv(request: InstallRequest): Promise<Installation> {
  const { command, dir, env } = request;
  const uv = findExecutable("uv", env.PATH);
  if (uv === undefined) {
    throw new PackageCacheError(
      PACKAGE_CACHE_ERROR_CODES.installerMissing,
      `uv is not on PATH: it installs what ${command.runner} would fetch, outside the sandbox; install uv (https://docs.astral.sh/uv/), or run the server's executable directly`,
    );
  }
  const [main, ...extra] = command.packages;
  if (main === undefined) throw new Error("a package-runner command names at least one package");
  const tools = join(dir, "tools");
  const bin = join(dir, "bin");
  await runInstaller({
    command: uv,
    args: [
      "tool",
      "install",
      ...(request.refresh ? ["--refresh"] : []),
      // Wheels only: building a source distribution runs the package's own code (setup.py, a build
      // backend) here, outside the sandbox, as npm's install scripts would; `installScripts` allows it.
      ...(request.scripts ? [] : ["--no-build"]),
      ...(command.python === undefined ? [] : ["--python", command.python]),
      ...extra.flatMap((request) => ["--with", requirementOf(request)]),
      requirementOf(main),
    ],
    cwd: dir,
    env: {
      ...env,
      UV_TOOL_DIR: tools,
      UV_TOOL_BIN_DIR: bin,
      UV_PYTHON_PREFERENCE: "only-system",
    },
    ...(request.onLine ? { onLine: request.onLine } : {}),
    signal: request.signal,
  });
  const wanted = command.bin ?? defaultBinOf(main);
  const entry = join(bin, wanted);
  if (!existsSync(entry)) {
    const offered = existsSync(bin) ? readdirSync(bin).join(", ") : "none";
    throw new PackageCacheError(
      PACKAGE_CACHE_ERROR_CODES.noExecutable,
      `${main.name} provides no executable ${JSON.stringify(wanted)} (executables: ${offered || "none"}); name one with uvx --from <package> <executable>`,
    );
  }
  return {
    packages: command.packages.map((request) => pinned(tools, request)),
    entry,
    interpreter: undefined,
  };
}

function requirementOf({ name, spec }: PackageRequest): string {
  return spec === "*" ? name : `${name}${spec}`;
}

// A distribution's metadata directory is `<normalized name>-<version>.dist-info` in site-packages.
function pinned(tools: string, { name }: PackageRequest): PinnedPackage {
  const normalized = name
    .replace(/\[.*$/, "")
    .toLowerCase()
    .replace(/[-_.]+/g, "_");
  for (const tool of listDir(tools)) {
    for (const python of listDir(join(tools, tool, "lib"))) {
      const sitePackages = join(tools, tool, "lib", python, "site-packages");
      for (const entry of listDir(sitePackages)) {
        const match = /^(.+)-([^-]+)\.dist-info$/.exec(entry);
        if (match && match[1]?.toLowerCase().replace(/[-_.]+/g, "_") === normalized) {
          return { name, version: match[2] ?? "", integrity: null };
        }
      }
    }
  }
  throw new PackageCacheError(
    PACKAGE_CACHE_ERROR_CODES.installFailed,
    `uv reported success but ${name} is not installed in ${tools}`,
  );
}

function listDir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}
