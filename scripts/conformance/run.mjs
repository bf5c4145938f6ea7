// Runs client scenarios of the official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in packages/mcp-client) against our client under test, and fails if any scenario fails.
//
//   node scripts/conformance/run.mjs                               # every revision the suite freezes
//   node scripts/conformance/run.mjs --spec-version 2025-11-25     # one revision's required client
//                                                                   # scenarios, then its not_scored ones
//   node scripts/conformance/run.mjs --spec-version 2026-07-28 tools_call   # just these, at that revision
//   node scripts/conformance/run.mjs --timing=report               # timing checks reported, not fatal
//
// Which scenarios a revision requires is the suite's own frozen `requirements/<revision>.yaml`;
// expected-failures.json names the required ones this client does not pass yet, each with why.
//
// The client (packages/mcp-client/test/conformance/client-under-test.ts) is TypeScript on our
// workspace packages' sources; it is bundled once into a temporary directory (vite, the
// "@agent/source" condition), so every scenario starts a plain `node` process and no build is needed.
// The suite imports fs.globSync, which Node 20 lacks: the loader hook in this folder supplies it to the
// suite's own modules only, and the client runs without it. Everything is loopback; nothing is kept.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const clientPackage = join(root, "packages", "mcp-client");
const clientEntry = join(clientPackage, "test", "conformance", "client-under-test.ts");
export const SCENARIO_TIMEOUT_MS = 60_000;
/** How many scenarios run at once: they mostly wait on loopback I/O, so three stays light on two cores. */
export const CONCURRENCY = Math.max(1, Math.min(3, cpus().length + 1));
// Checks that measure wall-clock time (sse-retry: the reconnect must come within 500 ms + 200 ms of
// the server's retry hint). On a loaded shared machine they say more about the machine than about
// the client; with `--timing=report` (what `pnpm test` uses) they are printed, not fatal.
const TIMING_CHECKS = new Set(["client-sse-retry-timing"]);

/** The suite's package folder, resolved from the package that pins it. */
function suiteDir() {
  const require = createRequire(join(clientPackage, "package.json"));
  return dirname(require.resolve("@modelcontextprotocol/conformance/package.json"));
}

/** The revisions the pinned suite has frozen requirements for (`requirements/<revision>.yaml`). */
export function specVersions() {
  return readdirSync(join(suiteDir(), "requirements"))
    .filter((name) => /^\d{4}-\d{2}-\d{2}\.yaml$/.test(name))
    .map((name) => name.slice(0, -".yaml".length))
    .sort();
}

/**
 * One revision's client scenarios, read from the suite's frozen requirements file: `required` (scored,
 * every one must pass) and `notScored` (run and reported, with the suite's reason, never counted).
 */
export function requirements(specVersion) {
  const file = join(suiteDir(), "requirements", `${specVersion}.yaml`);
  if (!existsSync(file)) {
    throw new Error(
      `The conformance suite has no requirements for spec version "${specVersion}" (known: ${specVersions().join(", ")}).`,
    );
  }
  // The suite's own YAML parser (a dependency of the pinned package), so we read the file as it does.
  const yaml = createRequire(join(suiteDir(), "package.json"))("yaml");
  const parsed = yaml.parse(readFileSync(file, "utf8"));
  const required = parsed.client ?? [];
  const notScored = (parsed.not_scored ?? [])
    .filter((entry) => entry.leg === "client")
    .map((entry) => ({ scenario: entry.scenario, reason: entry.reason }));
  return { required, notScored };
}

/** Required scenarios this client is known not to pass yet, each with why (expected-failures.json). */
export function expectedFailures(specVersion) {
  const all = JSON.parse(readFileSync(join(here, "expected-failures.json"), "utf8"));
  return all[specVersion] ?? {};
}

/** The suite's CLI entry, resolved from the package that pins it. */
function suiteEntry() {
  const manifest = JSON.parse(readFileSync(join(suiteDir(), "package.json"), "utf8"));
  return join(suiteDir(), manifest.bin.conformance);
}

/** Bundles the client under test (our packages from source, dependencies included) into `outDir`. */
async function bundleClient(outDir) {
  const require = createRequire(join(clientPackage, "package.json"));
  const vite = await import(require.resolve("vite"));
  const conditions = ["@agent/source", ...vite.defaultServerConditions];
  await vite.build({
    configFile: false,
    logLevel: "error",
    root: clientPackage,
    resolve: { conditions },
    ssr: { noExternal: true, resolve: { conditions, externalConditions: conditions } },
    build: {
      ssr: clientEntry,
      outDir,
      emptyOutDir: false,
      target: "node20",
      minify: false,
      reportCompressedSize: false,
      rollupOptions: { output: { entryFileNames: "client.mjs", format: "es" } },
    },
  });
  return join(outDir, "client.mjs");
}

/** Runs one scenario; resolves with its exit code and output (never rejects). */
function runScenario(scenario, specVersion, client, outputDir) {
  const hook = join(here, "register.mjs");
  // The shell the suite uses gets an argument vector it cannot split differently: no spaces in paths.
  const command = `env -u NODE_OPTIONS ${process.execPath} ${client}`;
  const args = [
    suiteEntry(),
    "client",
    "--command",
    command,
    "--scenario",
    scenario,
    "--spec-version",
    specVersion,
    "--timeout",
    String(SCENARIO_TIMEOUT_MS),
    "-o",
    outputDir,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: outputDir,
      env: { ...process.env, NODE_OPTIONS: `--import ${hook}` },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", (error) => resolve({ scenario, code: -1, output: `${output}\n${error.message}` }));
    child.on("close", (code) => resolve({ scenario, code: code ?? -1, output }));
  });
}

/** Whether the scenario's only failed or warned checks are timing checks, and the client itself ran fine. */
function onlyTimingFailed(outputDir) {
  const found = findFile(outputDir, "checks.json");
  if (!found) return false;
  const checks = JSON.parse(readFileSync(found, "utf8"));
  const stderr = readFileSync(join(dirname(found), "stderr.txt"), "utf8");
  const bad = checks.filter((check) => check.status === "FAILURE" || check.status === "WARNING");
  return stderr === "" && bad.length > 0 && bad.every((check) => TIMING_CHECKS.has(check.id));
}

function findFile(directory, name) {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      const found = findFile(path, name);
      if (found) return found;
    } else if (entry.name === name) return path;
  }
  return undefined;
}

/**
 * Bundles the client, runs the scenarios of one spec revision (three at a time), removes every
 * temporary file and resolves with one result per scenario: `{ scenario, passed, output }`.
 */
export async function runConformance(specVersion, scenarios, { concurrency, timing = "strict" } = {}) {
  if (/\s/.test(process.execPath) || /\s/.test(tmpdir())) {
    throw new Error("The conformance runner needs node and the temporary directory at paths without spaces.");
  }
  const workDir = mkdtempSync(join(tmpdir(), "agent-conformance-"));
  try {
    const client = await bundleClient(join(workDir, "client"));
    const queue = [...scenarios];
    const results = [];
    const limit = concurrency ?? CONCURRENCY;
    const worker = async () => {
      for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
        const outputDir = join(workDir, "results", String(results.length + queue.length));
        mkdirSync(outputDir, { recursive: true });
        const result = await runScenario(scenario, specVersion, client, outputDir);
        // The suite exits 0 without running a scenario it deems not applicable at the revision; only
        // a scenario that wrote its checks ran, and only a scenario that ran can pass.
        const ran = findFile(outputDir, "checks.json") !== undefined;
        const timingOnly = ran && result.code !== 0 && timing === "report" && onlyTimingFailed(outputDir);
        const note = !ran
          ? `the suite did not run it at ${specVersion} (not applicable)`
          : timingOnly
            ? "only a wall-clock timing check missed (reported, not fatal)"
            : undefined;
        results.push({
          scenario,
          passed: ran && (result.code === 0 || timingOnly),
          output: result.output,
          ...(note ? { note } : {}),
        });
      }
    };
    await Promise.all(Array.from({ length: limit }, worker));
    return scenarios.map((scenario) => results.find((result) => result.scenario === scenario));
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * Runs one revision's required client scenarios (or just `names`) and its not-scored ones, and says
 * whether the revision holds: every required scenario passes, except those expected-failures.json
 * lists for it, and none of those passes unnoticed (the list must shrink as the client catches up).
 */
export async function runRevision(
  specVersion,
  { names = [], timing = "strict", verbose = false, log = () => {} } = {},
) {
  const { required, notScored } = requirements(specVersion);
  const expected = expectedFailures(specVersion);
  const scored = names.length > 0 ? names : required;
  const extra = names.length > 0 ? [] : notScored.map((entry) => entry.scenario);
  const results = await runConformance(specVersion, [...scored, ...extra], { timing });
  const byName = new Map(results.map((result) => [result.scenario, result]));
  const lines = [];
  let broken = 0;
  let passed = 0;
  for (const scenario of scored) {
    const result = byName.get(scenario);
    const reason = expected[scenario];
    if (result.passed) passed += 1;
    if (result.passed && reason) {
      broken += 1;
      lines.push(`PASS?  ${scenario}  (listed in expected-failures.json but passes: remove it)`);
    } else if (result.passed) lines.push(`pass   ${scenario}${result.note ? `  (${result.note})` : ""}`);
    else if (reason) {
      if (verbose) log(`\n--- ${specVersion} ${scenario} (expected to fail) ---\n${result.output}\n`);
      lines.push(`xfail  ${scenario}  (${reason})`);
    } else if (result.note) {
      broken += 1;
      lines.push(`FAIL   ${scenario}  (${result.note})`);
    } else {
      broken += 1;
      log(`\n--- ${specVersion} ${scenario} ---\n${result.output}\n`);
      lines.push(`FAIL   ${scenario}`);
    }
  }
  for (const entry of notScored.filter((item) => extra.includes(item.scenario))) {
    const result = byName.get(entry.scenario);
    const note = result.note ? `; ${result.note}` : "";
    lines.push(
      `${result.passed ? "pass" : "fail"}   ${entry.scenario}  (not scored: ${entry.reason}${note})`,
    );
  }
  const summary = `${specVersion}: ${passed}/${scored.length} required passed, ${broken} unexpected`;
  return { specVersion, passed, total: scored.length, broken, lines, summary };
}

function parseArguments(args) {
  const options = { timing: "strict", verbose: false, specVersions: [], names: [] };
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg === "--timing=report") options.timing = "report";
    else if (arg === "--verbose") options.verbose = true;
    else if (arg === "--spec-version") options.specVersions.push(args[++index]);
    else if (arg.startsWith("--spec-version="))
      options.specVersions.push(arg.slice("--spec-version=".length));
    else if (arg.startsWith("--"))
      throw new Error(`Unknown option ${arg} (known: --spec-version <rev>, --timing=report, --verbose).`);
    else options.names.push(arg);
  }
  if (options.specVersions.length === 0) options.specVersions = specVersions();
  return options;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = parseArguments(process.argv.slice(2));
  const log = (text) => process.stdout.write(text);
  const outcomes = [];
  for (const specVersion of options.specVersions) {
    outcomes.push(await runRevision(specVersion, { ...options, log }));
  }
  for (const outcome of outcomes) log(`\n${outcome.specVersion}\n${outcome.lines.join("\n")}\n`);
  for (const outcome of outcomes) log(`${outcome.summary}\n`);
  process.exitCode = outcomes.some((outcome) => outcome.broken > 0) ? 1 : 0;
}
