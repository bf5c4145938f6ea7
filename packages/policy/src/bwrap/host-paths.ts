import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** Whether `path` is `root` or lies below it (both absolute). */
export function isSameOrInside(root: string, path: string): boolean {
  const rest = relative(root, path);
  return rest === "" || (!isAbsolute(rest) && rest !== ".." && !rest.startsWith(`..${sep}`));
}

/** The real path of `path` (links resolved, so a bind lands where the kernel looks), or `path` made absolute when it does not exist. */
export function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
