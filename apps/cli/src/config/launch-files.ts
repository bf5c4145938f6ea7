import { realpathSync, type Stats, statSync } from "node:fs";
import { extname, isAbsolute, resolve } from "node:path";
import { isSameOrInside } from "../local-tools/protected-paths.js";
import type { ServerConfig, StdioServerConfig } from "./server-config.js";

// Extensions of files an interpreter runs or loads: such a file named in `args` is the server's code
// even inside its own write grant.
const CODE_EXTENSIONS: ReadonlySet<string> = new Set([
  ".js",
  ".mjs",
  ".cjs",
  ".ts",
  ".mts",
  ".cts",
  ".jsx",
  ".tsx",
  ".py",
  ".pyc",
  ".pth",
  ".sh",
  ".bash",
  ".zsh",
  ".rb",
  ".pl",
  ".php",
  ".lua",
  ".jar",
  ".wasm",
  ".node",
  ".so",
]);

/**
 * The files the configured stdio servers run from, as named and by real path: the `launchFiles` a
 * server entry lists, or else its command given as a path and every argument that names an existing file (against
 * the server's directory, as the server will read it), except the server's own data: a file inside
 * its own `sandbox.write` grant that is neither executable nor has a code extension (a log, a
 * database). A local tool that rewrote a launch file would have its code run, with the server's
 * secrets, the next time the server starts. What such a file imports is not listed: a server whose
 * code lies inside the workspace is fully protected only when that code lives elsewhere.
 */
export function launchFilesOf(servers: readonly ServerConfig[]): string[] {
  const files = new Set<string>();
  for (const server of servers) {
    if (server.type !== "stdio") continue;
    for (const file of launchFilesOfServer(server)) files.add(file);
  }
  return [...files];
}

// Each file by the name the server is given and by its real path: a link on the way is something a
// sandbox must see too (it refuses to start where one inside a write grant could be replaced).
function launchFilesOfServer(server: StdioServerConfig): string[] {
  const named = isAbsolute(server.command) ? [server.command] : [];
  const candidates = [
    ...named,
    ...(server.launchFiles ?? server.args.map((arg) => resolve(server.cwd, arg))),
  ];
  const files: string[] = [];
  for (const [index, path] of candidates.entries()) {
    const file = realFileOf(path);
    if (file === undefined) continue;
    const isArgument = index >= named.length && server.launchFiles === undefined;
    if (isArgument && isOwnData(server, file.real, file.stats)) continue;
    files.push(path, file.real);
  }
  return files;
}

// What a server writes itself (its log, its database) lies in its own write grant and is not code.
function isOwnData(server: StdioServerConfig, real: string, stats: Stats): boolean {
  const writable = server.sandbox.write.some((root) => isSameOrInside(realOrSelf(root), real));
  const code = (stats.mode & 0o111) !== 0 || CODE_EXTENSIONS.has(extname(real).toLowerCase());
  return writable && !code;
}

function realFileOf(path: string): { real: string; stats: Stats } | undefined {
  try {
    const real = realpathSync(path);
    const stats = statSync(real);
    return stats.isFile() ? { real, stats } : undefined;
  } catch {
    return undefined;
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
