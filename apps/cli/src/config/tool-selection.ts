import { matchesToolPattern } from "@agent/policy";
import type { ServerConfig } from "./server-config.js";

/**
 * Whether a server's remote tool is exposed under its entry's `includeTools` / `excludeTools`: included
 * when `includeTools` is unset or one of its names or `*` patterns matches, and never when an
 * `excludeTools` entry matches (exclusion wins).
 */
export function isToolSelected(
  server: Pick<ServerConfig, "includeTools" | "excludeTools">,
  remoteName: string,
): boolean {
  const { includeTools, excludeTools } = server;
  if (excludeTools?.some((pattern) => matchesToolPattern(pattern, remoteName))) return false;
  return (
    includeTools === undefined || includeTools.some((pattern) => matchesToolPattern(pattern, remoteName))
  );
}
