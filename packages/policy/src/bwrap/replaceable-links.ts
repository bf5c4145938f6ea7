import { lstatSync, readlinkSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { POLICY_ERROR_CODES, PolicyError } from "../errors.js";
import { isSameOrInside } from "./host-paths.js";

/** The most links followed on the way to one path, as the kernel's own bound (ELOOP). */
const MAX_LINKS = 40;

/**
 * Every symbolic link met on the way to `path`, following each as the kernel would: each given as
 * where it sits (the real path of its directory, plus its name). A missing component ends the walk.
 */
export function linksOnTheWayTo(path: string): string[] {
  const links: string[] = [];
  let pending = resolve(path).split("/").filter(Boolean);
  let current = "/";
  while (pending.length > 0 && links.length <= MAX_LINKS) {
    const [name = "", ...rest] = pending;
    pending = rest;
    if (name === ".") continue;
    if (name === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, name);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      break;
    }
    if (!isLink) {
      current = next;
      continue;
    }
    links.push(next);
    const target = readlinkSync(next);
    pending = [...target.split("/").filter(Boolean), ...pending];
    if (isAbsolute(target)) current = "/";
  }
  return links;
}

/**
 * Throws `PolicyError` (`replaceable_protected_link`) when a protected name is reached through a
 * symbolic link that sits inside a write grant: a bind can pin the link's target, never the link,
 * so a process could replace it and plant the file the host opens next under that name.
 */
export function refuseReplaceableLinks(
  protectedNames: readonly string[],
  writeRoots: readonly string[],
): void {
  for (const name of protectedNames) {
    for (const link of linksOnTheWayTo(name)) {
      const root = writeRoots.find((candidate) => isSameOrInside(candidate, link));
      if (root === undefined) continue;
      const where =
        link === resolve(name)
          ? `the protected path ${JSON.stringify(name)} is a symbolic link inside the write grant ${JSON.stringify(root)}`
          : `the protected path ${JSON.stringify(name)} is reached through the symbolic link ${JSON.stringify(link)}, which is inside the write grant ${JSON.stringify(root)}`;
      throw new PolicyError(
        POLICY_ERROR_CODES.replaceableProtectedLink,
        `refusing to start a sandboxed process: ${where}; from inside, the link could be replaced and the host would open what was planted. Replace the link with the file or directory it points to, move it out of the write grant, or narrow the grant.`,
      );
    }
  }
}
