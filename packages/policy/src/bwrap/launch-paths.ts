import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { findExecutable } from "./find-executable.js";
import { isSameOrInside, realOrSelf } from "./host-paths.js";

/** What a process is launched with, as far as its own files go. */
export interface LaunchPathsInput {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string | undefined;
}

/**
 * The process's own files that stay readable even under the hidden home and the private `/tmp`:
 * its working directory, the executable it starts as (a PATH lookup uses the environment it will
 * get), and, with `withScriptProjects`, each file its arguments name with its project (`node
 * /srv/proj/server.mjs`: `/srv/proj`, where its imports resolve). None of them ever uncovers a
 * hidden root (`hiddenRoots`: the home, `/tmp`) as a whole: one `--env-file ~/.server.env` grants
 * that file, never the home with `~/.ssh` in it.
 */
export function launchPathsOf(
  spec: LaunchPathsInput,
  withScriptProjects: boolean,
  hiddenRoots: readonly string[],
): string[] {
  const roots = hiddenRoots.map(realOrSelf).filter((root) => root !== "/");
  // A bind of the root itself, or of a directory above it, would show everything the tmpfs hides.
  const uncoversRoot = (path: string): boolean => roots.some((root) => isSameOrInside(path, root));
  const paths: string[] = [];
  if (spec.cwd !== undefined) paths.push(resolve(spec.cwd));
  const executable = executableOf(spec);
  if (executable !== undefined) paths.push(executable);
  for (const arg of withScriptProjects ? spec.args : []) {
    const file = realFileOf(resolve(spec.cwd ?? process.cwd(), arg));
    if (file !== undefined) paths.push(projectOf(file, roots));
  }
  return paths.map(realOrSelf).filter((path) => !uncoversRoot(path));
}

// Outside the hidden roots everything is readable anyway: the outermost directory above `file` with
// a node_modules (a workspace root), else its folder. Below a hidden root the project must say it is
// one (node_modules or package.json) and stays strictly below that root; else the file alone.
function projectOf(file: string, roots: readonly string[]): string {
  const root = roots.find((candidate) => isSameOrInside(candidate, file));
  let project = root === undefined ? dirname(file) : file;
  for (let dir = dirname(file); dirname(dir) !== dir; dir = dirname(dir)) {
    if (root !== undefined && isSameOrInside(dir, root)) break;
    const marked = root === undefined ? ["node_modules"] : ["node_modules", "package.json"];
    if (marked.some((name) => existsSync(join(dir, name)))) project = dir;
  }
  return project;
}

function realFileOf(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** The executable a spec starts (a PATH lookup uses the environment it will get), if it is one. */
export function executableOf(spec: Pick<LaunchPathsInput, "command" | "cwd" | "env">): string | undefined {
  const named = isAbsolute(spec.command)
    ? spec.command
    : spec.command.includes("/")
      ? resolve(spec.cwd ?? process.cwd(), spec.command)
      : spec.command;
  return findExecutable(named, spec.env.PATH);
}
