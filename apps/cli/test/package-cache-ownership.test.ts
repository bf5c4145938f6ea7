import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, type StdioServerConfig } from "../src/config/index.js";
import { createPackageCache, type PackageCache } from "../src/packages/package-cache.js";
import { entryDirOf, writeManifest } from "../src/packages/package-manifest.js";
import { parsePackageRunner } from "../src/packages/package-runner-command.js";

let directory = "";
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agent-cache-owner-"));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function npxServer(): StdioServerConfig {
  const file = join(directory, "agent.config.json");
  writeFileSync(
    file,
    JSON.stringify({ mcpServers: { mem: { command: "npx", args: ["-y", "@e2e/mcp-server"] } } }),
  );
  const [server] = loadConfig(file, {}).servers;
  if (server?.type !== "stdio") throw new Error("expected a stdio server");
  return server;
}

/** A cache whose entry for `server` holds a manifest and an executable someone put there. */
function plantedCache(root: string, server: StdioServerConfig): { cache: PackageCache; entryDir: string } {
  const plan = parsePackageRunner(server.command, server.args);
  if (plan.kind !== "package") throw new Error("expected a package-runner command");
  const entryDir = entryDirOf(root, plan.command, false);
  mkdirSync(join(entryDir, "install-planted"), { recursive: true, mode: 0o700 });
  chmodSync(root, 0o700);
  writeFileSync(join(entryDir, "install-planted", "run.js"), "// anything\n");
  writeManifest(entryDir, {
    version: 1,
    installer: "npm",
    requested: ["@e2e/mcp-server@latest"],
    packages: [{ name: "@e2e/mcp-server", version: "1.0.0", integrity: null }],
    installDir: "install-planted",
    entry: "install-planted/run.js",
    interpreter: "node",
    installedAt: new Date(0).toISOString(),
  });
  const events = { emit: () => undefined };
  const progress = { started: () => undefined, line: () => undefined, finished: () => undefined };
  // PATH without npm: nothing may be installed either.
  return { cache: createPackageCache({ root, env: { PATH: "" }, progress, events }), entryDir };
}

describe("the package cache runs nothing another user may have put in it", () => {
  it("serves its own entry; refuses one under a world-writable directory that is not sticky", async () => {
    const server = npxServer();
    const shared = join(directory, "shared");
    const { cache } = plantedCache(join(shared, "packages"), server);
    expect(cache.cached(server)?.entry).toMatch(/install-planted\/run\.js$/);
    chmodSync(shared, 0o777);
    expect(cache.cached(server)).toBeUndefined();
    expect(cache.mountsOf(server)).toEqual([]);
    const launch = cache.launchOf(server, undefined);
    await expect(launch?.({ command: "npx", args: [], env: {}, cwd: directory })).rejects.toMatchObject({
      code: "cache_not_own",
    });
  });

  it.skipIf(process.getuid?.() !== 0)("refuses an entry another user owns", async () => {
    const server = npxServer();
    const { cache, entryDir } = plantedCache(join(directory, "packages"), server);
    chownSync(entryDir, 65534, 65534);
    expect(cache.cached(server)).toBeUndefined();
    await expect(cache.ensure(server)).rejects.toMatchObject({ code: "cache_not_own" });
  });
});
