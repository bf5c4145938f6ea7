import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/** The environment variable that names the bubblewrap executable, overriding the PATH lookup. */
export const BWRAP_ENV_VARIABLE = "AGENT_BWRAP";

/**
 * The absolute path of executable `name` on `pathVariable` (a `PATH` value), or `undefined` if no
 * entry holds an executable file of that name. A name with a slash is returned as is if executable.
 */
export function findExecutable(name: string, pathVariable: string | undefined): string | undefined {
  if (name.includes("/")) return isExecutableFile(name) ? name : undefined;
  for (const directory of (pathVariable ?? "").split(delimiter)) {
    if (directory === "" || !isAbsolute(directory)) continue;
    const candidate = join(directory, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Where bubblewrap is looked for: `$AGENT_BWRAP` when set (even if nothing is there), else `bwrap` on `PATH`. */
export function bwrapCandidate(env: Readonly<Record<string, string | undefined>>): {
  path: string | undefined;
  source: "env" | "path";
} {
  const fromEnv = env[BWRAP_ENV_VARIABLE];
  if (fromEnv !== undefined && fromEnv !== "") return { path: fromEnv, source: "env" };
  return { path: findExecutable("bwrap", env.PATH), source: "path" };
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
