import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One version as published: what npm checks the tarball against. */
export interface PublishedVersion {
  version: string;
  integrity: string;
}

/**
 * An npm registry on loopback serving one package, built from a fixture directory with `npm pack`
 * (offline), and recording every request it answers: the tests point npm at it with
 * `npm_config_registry` and learn from `requests` whether the CLI went to the network.
 */
export interface LoopbackNpmRegistry {
  readonly url: string;
  /** Each request's method and path, in order. */
  readonly requests: string[];
  /** Packs the fixture as `version` and makes it the `latest` dist-tag. */
  publish(version: string): PublishedVersion;
  close(): Promise<void>;
}

/** Starts the registry for the package in `fixtureDir` (its package.json names it; the version is set on publish). */
export async function startLoopbackNpmRegistry(fixtureDir: string): Promise<LoopbackNpmRegistry> {
  const work = mkdtempSync(join(tmpdir(), "agent-e2e-registry-"));
  const manifest = JSON.parse(readFileSync(join(fixtureDir, "package.json"), "utf8")) as Record<
    string,
    unknown
  >;
  const name = String(manifest.name);
  const versions: Record<string, Record<string, unknown>> = {};
  const tarballs = new Map<string, string>();
  let latest: string | undefined;
  const requests: string[] = [];

  const server: Server = createServer((request, response) => {
    const path = decodeURIComponent(request.url ?? "/");
    requests.push(`${request.method} ${path}`);
    const tarball = tarballs.get(path);
    if (tarball !== undefined) {
      response.writeHead(200, { "content-type": "application/octet-stream" });
      response.end(readFileSync(tarball));
      return;
    }
    if (path === `/${name}` && latest !== undefined) {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ name, "dist-tags": { latest }, versions }));
      return;
    }
    response.writeHead(404, { "content-type": "application/json" });
    response.end(JSON.stringify({ error: "not found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    requests,
    publish(version) {
      const source = join(work, `source-${version}`);
      cpSync(fixtureDir, source, { recursive: true });
      const published: Record<string, unknown> = { ...manifest, version };
      delete published.private;
      writeFileSync(join(source, "package.json"), JSON.stringify(published, null, 2));
      const output = execFileSync("npm", ["pack", source, "--pack-destination", work, "--json"], {
        cwd: work,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, npm_config_update_notifier: "false" },
      });
      const [packed] = JSON.parse(output) as { filename: string; integrity: string; shasum: string }[];
      if (!packed) throw new Error(`npm pack reported nothing:\n${output}`);
      const tarballPath = `/${name}/-/${packed.filename}`;
      tarballs.set(tarballPath, join(work, packed.filename));
      versions[version] = {
        ...published,
        dist: { tarball: `${url}${tarballPath}`, integrity: packed.integrity, shasum: packed.shasum },
      };
      latest = version;
      return { version, integrity: packed.integrity };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(work, { recursive: true, force: true });
    },
  };
}
