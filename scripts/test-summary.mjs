// Prints one plain line, "N passed, N failed", from every package's vitest JSON report, and fails
// when a test failed or no test ran at all (a silent CI must not look like a green one). Failures
// that are timeouts (a test, hook or CLI run that hit its limit, usually a loaded machine rather
// than a wrong answer) are counted apart and their files named, so they can be rerun alone.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

// vitest's own timeouts, and the e2e helpers' bounds on a CLI run and on a polled condition.
const TIMEOUT_PATTERNS = [
  /\b(Test|Hook) timed out in \d+ ?ms/,
  /\bdid not exit within \d+ ?ms/,
  /\bTimed out after \d+ ?ms waiting for\b/,
];

const root = new URL("..", import.meta.url).pathname;

/** Whether the workspace package in `dir` has tests to report (a `test` script): tests/bench has none. */
function hasTests(dir) {
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) return false;
  return typeof JSON.parse(readFileSync(manifest, "utf8")).scripts?.test === "string";
}
let passed = 0;
let failed = 0;
const timedOut = new Map();
const missing = [];
for (const folder of ["packages", "apps", "tests"]) {
  for (const name of readdirSync(join(root, folder))) {
    if (!hasTests(join(root, folder, name))) continue;
    const report = join(root, folder, name, ".vitest-report.json");
    if (!existsSync(report)) {
      missing.push(`${folder}/${name}`);
      continue;
    }
    const json = JSON.parse(readFileSync(report, "utf8"));
    passed += json.numPassedTests;
    failed += json.numFailedTests + (json.numRuntimeErrors ?? 0);
    if (json.success === false && json.numFailedTests === 0) failed += 1;
    for (const file of json.testResults ?? []) {
      const timeouts = (file.assertionResults ?? []).filter(
        (test) =>
          test.status === "failed" &&
          (test.failureMessages ?? []).some((text) => TIMEOUT_PATTERNS.some((pattern) => pattern.test(text))),
      ).length;
      if (timeouts > 0) timedOut.set(relative(root, file.name), timeouts);
    }
  }
}
if (missing.length > 0) console.log(`no test report from: ${missing.join(", ")}`);
const timeouts = [...timedOut.values()].reduce((sum, count) => sum + count, 0);
if (timeouts > 0) {
  console.log(`${timeouts} of the failures are timeouts (a limit hit, often a busy machine); rerun alone:`);
  for (const [file, count] of timedOut) console.log(`  ${file} (${count})`);
}
const other = timeouts > 0 ? ` (${timeouts} timeouts, ${failed - timeouts} other)` : "";
console.log(`${passed} passed, ${failed} failed${other}`);
process.exit(failed > 0 || passed === 0 || missing.length > 0 ? 1 : 0);
