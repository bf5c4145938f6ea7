import { execFile, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractExamples, readmePaths } from "../src/readme-examples.mjs";

const run = promisify(execFile);
const root = new URL("../../..", import.meta.url).pathname;
const publishable = ["packages", "apps"].flatMap((folder) =>
  readdirSync(join(root, folder))
    .map((name) => join(root, folder, name))
    .filter((dir) => existsSync(join(dir, "package.json")) && !readJson(join(dir, "package.json")).private),
);

let work: string;
let consumer: string;

// Packs every publishable package the way `pnpm publish` would (workspace: and catalog: replaced),
// installs the tarballs into a fresh npm project outside the workspace, then checks it from outside.
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "agent-packed-"));
  const tarballs = join(work, "tarballs");
  consumer = join(work, "consumer");
  mkdirSync(tarballs);
  mkdirSync(consumer);
  const dependencies: Record<string, string> = {};
  for (const dir of publishable) {
    const { stdout } = await run("pnpm", ["pack", "--pack-destination", tarballs], { cwd: dir });
    const tarball = stdout.trim().split("\n").at(-1) ?? "";
    dependencies[readJson(join(dir, "package.json")).name] = `file:${tarball}`;
  }
  const typescript = readJson(join(root, "node_modules/typescript/package.json")).version;
  const typesNode = readJson(join(root, "node_modules/@types/node/package.json")).version;
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({
      name: "consumer",
      private: true,
      type: "module",
      dependencies: {
        ...dependencies,
        // What the README examples start: the reference server, run through npx from this project.
        "@modelcontextprotocol/server-everything": readJson(
          join(root, "apps/cli/node_modules/@modelcontextprotocol/server-everything/package.json"),
        ).version,
        zod: readJson(join(root, "packages/tools/node_modules/zod/package.json")).version,
      },
      devDependencies: { typescript, "@types/node": typesNode },
    }),
  );
  // Install scripts are skipped: the only one that matters is better-sqlite3's native build, which
  // the workspace install already made for this very Node; it is copied in below instead of being
  // compiled a second time (that would test node-gyp, not these packages).
  await run(
    "npm",
    ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"],
    {
      cwd: consumer,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const addon = join(root, "packages/store-sqlite/node_modules/better-sqlite3/build");
  if (existsSync(addon))
    cpSync(addon, join(consumer, "node_modules/better-sqlite3/build"), { recursive: true });
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the packed packages, installed with npm outside the workspace", () => {
  it("ship a LICENSE, their README, and every file their exports and source maps point at", () => {
    for (const dir of publishable) {
      const { name } = readJson(join(dir, "package.json"));
      const installed = join(consumer, "node_modules", name);
      expect(existsSync(join(installed, "LICENSE")), `${name} LICENSE`).toBe(true);
      const manifest = readJson(join(installed, "package.json"));
      expect(manifest.repository, `${name} repository`).toBeDefined();
      expect(JSON.stringify(manifest)).not.toMatch(/workspace:|catalog:/);
      for (const target of exportTargets(manifest.exports)) {
        expect(existsSync(join(installed, target)), `${name} exports ${target}`).toBe(true);
      }
      for (const map of filesUnder(join(installed, "dist")).filter((file) => file.endsWith(".js.map"))) {
        const { sources, sourceRoot = "" } = JSON.parse(readFileSync(map, "utf8")) as {
          sources: string[];
          sourceRoot?: string;
        };
        for (const source of sources) {
          expect(existsSync(join(map, "..", sourceRoot, source)), `${map} -> ${source}`).toBe(true);
        }
      }
    }
  });

  const examples = readmePaths(root).flatMap(({ path, pkg }) => extractExamples(path, pkg));

  it.each(["node16", "bundler"])(
    "type-check a consumer of every README example under moduleResolution %s",
    async (resolution) => {
      const dir = join(consumer, `check-${resolution}`);
      mkdirSync(dir, { recursive: true });
      for (const example of examples)
        writeFileSync(join(dir, `${example.name}.ts`), `${example.code}\nexport {};\n`);
      const options =
        resolution === "node16"
          ? { module: "node16", moduleResolution: "node16" }
          : { module: "esnext", moduleResolution: "bundler" };
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            ...options,
            target: "es2022",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ["node"],
          },
          include: ["*.ts"],
        }),
      );
      await expect(tsc(dir)).resolves.toBe("");
    },
  );

  it("runs each README example from the installed packages", async () => {
    const dir = join(consumer, "run");
    mkdirSync(dir, { recursive: true });
    const runnable = examples.filter((example) => example.run);
    for (const example of runnable)
      writeFileSync(join(dir, `${example.name}.ts`), `${example.code}\nexport {};\n`);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "node16",
          moduleResolution: "node16",
          target: "es2022",
          strict: true,
          skipLibCheck: true,
          types: ["node"],
          outDir: "out",
        },
        include: ["*.ts"],
      }),
    );
    await expect(tsc(dir)).resolves.toBe("");
    // The HTTP examples talk to the reference server's Streamable HTTP mode, on a port of its own.
    const http = await startHttpReferenceServer();
    try {
      for (const example of runnable) {
        const result = await run(process.execPath, [join(dir, "out", `${example.name}.js`)], {
          cwd: consumer,
          timeout: 60_000,
          env: {
            PATH: `${join(consumer, "node_modules/.bin")}:${process.env.PATH ?? ""}`,
            HOME: consumer,
            MCP_URL: http.url,
          },
        }).then(
          () => "ok",
          (error: { stderr?: string; message: string }) =>
            `${example.name} failed: ${error.stderr || error.message}`,
        );
        expect(result).toBe("ok");
      }
    } finally {
      await http.stop();
    }
  });
});

/** server-everything in Streamable HTTP mode, from the consumer's own install, on a free loopback port. */
async function startHttpReferenceServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(consumer, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "streamableHttp"],
    {
      cwd: consumer,
      env: { PATH: process.env.PATH ?? "", PORT: String(port) },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    let seen = "";
    child.stderr.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("listening")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${seen}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function tsc(dir: string): Promise<string> {
  const bin = join(consumer, "node_modules/typescript/bin/tsc");
  return run(process.execPath, [bin, "-p", dir], { cwd: dir }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string; message: string }) => error.stdout || error.message,
  );
}

function exportTargets(exports: unknown): string[] {
  if (typeof exports === "string") return [exports];
  if (typeof exports !== "object" || exports === null) return [];
  return Object.values(exports).flatMap(exportTargets);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

function readJson(
  path: string,
): Record<string, unknown> & { name: string; version: string; private?: boolean } {
  return JSON.parse(readFileSync(path, "utf8"));
}
