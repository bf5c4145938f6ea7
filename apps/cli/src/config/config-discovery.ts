import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { CONFIG_ERROR_CODES, ConfigError } from "./config-error.js";
import type { Environment } from "./expand-variables.js";

/** The file looked for in the current directory and above it when neither `--config` nor `AGENT_CONFIG` is given. */
export const DEFAULT_CONFIG_FILE = "agent.config.json";

/** Claude Code's project file, used where a directory has no {@link DEFAULT_CONFIG_FILE}. */
export const PROJECT_MCP_FILE = ".mcp.json";

/** The environment variable naming the configuration file. */
export const CONFIG_ENV_VARIABLE = "AGENT_CONFIG";

/** Where {@link resolveConfigPath} found the path. */
export type ConfigPathSource = "flag" | "env" | "default" | "project-mcp";

/** The project configuration to use, and how it was found. */
export interface ConfigLocation {
  /** Absolute path; with source `default` and nothing found, `agent.config.json` in `cwd` (which `mcp add` creates). */
  path: string;
  source: ConfigPathSource;
  /** Whether the file exists (a named file may not: the loader then says so). */
  found: boolean;
  /** The directories searched, nearest first (empty when a flag or the environment named the file). */
  searched: string[];
}

/**
 * The configuration file to use: `flag` (`--config FILE`), else `env.AGENT_CONFIG`, else the nearest
 * directory from `cwd` upward holding `agent.config.json` or `.mcp.json` (Claude Code's project
 * file). The search stops at the repository root (the first directory holding `.git`, as git does)
 * and never goes above the home directory. Relative paths are resolved against `cwd`; empty values
 * count as unset. Throws `config_ambiguous` when one directory holds both files, and
 * `config_untrusted` when the file found could have been put there by someone else.
 */
export function resolveConfigPath(options: {
  flag?: string | undefined;
  env?: Environment;
  cwd: string;
}): ConfigLocation {
  const fromEnv = options.env?.[CONFIG_ENV_VARIABLE];
  for (const [value, source] of [
    [options.flag, "flag"],
    [fromEnv, "env"],
  ] as const) {
    if (value === undefined || value === "") continue;
    const path = resolve(options.cwd, value);
    return { path, source, found: existsSync(path), searched: [] };
  }
  const searched: string[] = [];
  for (const directory of searchedDirectories(options.cwd, homeOf(options.env))) {
    searched.push(directory);
    const found = configIn(directory);
    if (found) {
      assertOwnLocation(found.path);
      return { ...found, found: true, searched };
    }
    if (existsSync(join(directory, ".git"))) break;
  }
  return { path: resolve(options.cwd, DEFAULT_CONFIG_FILE), source: "default", found: false, searched };
}

/**
 * {@link resolveConfigPath}, requiring that the file exists: else `config_not_found`, saying where
 * it looked. Commands that open the state call it first, so no state is created where no
 * configuration is.
 */
export function requireConfigPath(options: Parameters<typeof resolveConfigPath>[0]): ConfigLocation {
  const location = resolveConfigPath(options);
  if (location.found || location.source !== "default") return location;
  const [nearest = options.cwd] = location.searched;
  const farthest = location.searched.at(-1) ?? nearest;
  const where = nearest === farthest ? `in ${nearest}` : `in ${nearest} or above it up to ${farthest}`;
  throw new ConfigError(
    CONFIG_ERROR_CODES.notFound,
    `No ${DEFAULT_CONFIG_FILE} or ${PROJECT_MCP_FILE} ${where} (the search stops at a repository root, a directory holding .git). Run the command in the project, pass --config FILE, or set ${CONFIG_ENV_VARIABLE}; nothing was created.`,
    { file: location.path },
  );
}

// `cwd` and its parents, up to the filesystem root, or to the home directory when `cwd` is inside it.
function* searchedDirectories(cwd: string, home: string | undefined): Generator<string> {
  let directory = resolve(cwd);
  for (;;) {
    yield directory;
    const parent = dirname(directory);
    if (parent === directory || directory === home) return;
    directory = parent;
  }
}

function configIn(directory: string): { path: string; source: "default" | "project-mcp" } | undefined {
  const own = join(directory, DEFAULT_CONFIG_FILE);
  const projectFile = join(directory, PROJECT_MCP_FILE);
  const hasOwn = existsSync(own);
  const hasProjectFile = existsSync(projectFile);
  if (hasOwn && hasProjectFile) {
    // Refused rather than guessed: were .mcp.json the configuration, a tool or server that may write
    // the workspace could create agent.config.json beside it and take precedence the next time.
    throw new ConfigError(
      CONFIG_ERROR_CODES.ambiguous,
      `Both ${DEFAULT_CONFIG_FILE} and ${PROJECT_MCP_FILE} are in ${directory}; pass --config FILE or set ${CONFIG_ENV_VARIABLE} to say which one to use.`,
      { file: own },
    );
  }
  if (hasOwn) return { path: own, source: "default" };
  if (hasProjectFile) return { path: projectFile, source: "project-mcp" };
  return undefined;
}

// A file found by searching, not named, must be the user's own: it is the gate's policy. A file
// another user owns (a planted /tmp/.mcp.json above a cwd under /tmp), or one others may replace (a
// world-writable file, a directory another user owns or anyone may write without the sticky bit),
// is refused, as git refuses a repository of dubious ownership. Root's files are trusted.
function assertOwnLocation(path: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const file = statSync(path);
  const directory = statSync(dirname(path));
  const isForeign = (owner: number) => owner !== uid && owner !== 0;
  const why = isForeign(file.uid)
    ? `it belongs to another user (uid ${file.uid})`
    : (file.mode & 0o002) !== 0
      ? "anyone may write it"
      : isForeign(directory.uid)
        ? `its directory belongs to another user (uid ${directory.uid})`
        : (directory.mode & 0o002) !== 0 && (directory.mode & 0o1000) === 0
          ? "anyone may replace it (its directory is world-writable)"
          : undefined;
  if (why === undefined) return;
  throw new ConfigError(
    CONFIG_ERROR_CODES.untrusted,
    `Found ${path} by searching upward, but ${why}, so it may not be yours; it was not used. Pass --config FILE or set ${CONFIG_ENV_VARIABLE} to use it anyway.`,
    { file: path },
  );
}

/** The home directory: `HOME` of the given environment when it is absolute, else the OS's. */
export function homeOf(env: Environment | undefined): string | undefined {
  const home = env?.HOME;
  if (home !== undefined && isAbsolute(home)) return resolve(home);
  try {
    return homedir();
  } catch {
    return undefined;
  }
}
