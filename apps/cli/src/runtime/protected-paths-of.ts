import { join, relative } from "node:path";
import { type AgentConfig, launchFilesOf, type ServerConfig } from "../config/index.js";
import { isSameOrInside, type ProtectedPaths, realPathOf } from "../local-tools/index.js";
import { projectNpmrcPaths } from "../packages/npm-install.js";
import type { PackageCache } from "../packages/package-cache.js";

/**
 * What no local tool and no sandboxed process may read or write, for one command: the config file,
 * the state directory, the config's `protectedPaths`, the servers' launch files, and the paths run
 * from the host (the package cache, the .npmrc files its installs read). The one place this set is
 * computed; `workspaceRealPath` is the workspace root with its links resolved.
 */
export function protectedPathsOf(
  config: Pick<AgentConfig, "file" | "protectedPaths" | "servers" | "hostRunPaths" | "workspaceRoot">,
  stateDir: string,
  packages: PackageCache,
  workspaceRealPath: string,
): ProtectedPaths {
  return {
    configFile: config.file,
    stateDir,
    secretPaths: config.protectedPaths,
    launchFiles: launchFilesOf(config.servers),
    // By the real root: the file tools compare real paths, and a name that does not exist has no other.
    // The package cache too: what servers run from, so nothing sandboxed and no local tool may change it.
    hostRunPaths: [
      ...[...config.hostRunPaths, ...npmrcPathsOf(config.servers, packages)].map((path) =>
        underRoot(path, config.workspaceRoot, workspaceRealPath),
      ),
      // By its real path as well: the file tools compare real paths, and the cache may be reached
      // through a link (a home directory that is one) that the workspace root is not named by.
      ...new Set([packages.root, realPathOf(packages.root) ?? packages.root]),
    ],
  };
}

// The project .npmrc files the package cache's npm installs read outside the sandbox (see projectNpmrcPaths).
function npmrcPathsOf(servers: readonly ServerConfig[], packages: PackageCache): string[] {
  return servers.flatMap((server) => {
    if (server.type !== "stdio") return [];
    const plan = packages.planOf(server);
    return plan.kind === "package" && plan.command.installer === "npm" ? projectNpmrcPaths(server.cwd) : [];
  });
}

// `path` below the configured root as the same path below the root's real path; others unchanged.
function underRoot(path: string, root: string, realRoot: string): string {
  return isSameOrInside(root, path) ? join(realRoot, relative(root, path)) : path;
}
