import { realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ServerConfig } from "./server-config.js";

/**
 * The files the configured stdio servers run from, by real path: each command given as a path and
 * every argument that names an existing file (against the server's directory, as the server will
 * read it). A local tool that rewrote one would have its code run, with the server's secrets, the
 * next time the server starts. What such a file imports is not listed: a server whose code lies
 * inside the workspace is fully protected only when that code lives elsewhere.
 */
export function launchFilesOf(servers: readonly ServerConfig[]): string[] {
  const files = new Set<string>();
  for (const server of servers) {
    if (server.type !== "stdio") continue;
    const named = isAbsolute(server.command) ? [server.command] : [];
    for (const path of [...named, ...server.args.map((arg) => resolve(server.cwd, arg))]) {
      const real = realFileOf(path);
      if (real !== undefined) files.add(real);
    }
  }
  return [...files];
}

function realFileOf(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}
