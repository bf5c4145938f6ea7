// Prints one plain line, "N passed, N failed", from every package's vitest JSON report, and fails
// when a test failed or no test ran at all (a silent CI must not look like a green one).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
let passed = 0;
let failed = 0;
const missing = [];
for (const folder of ["packages", "apps", "tests"]) {
  for (const name of readdirSync(join(root, folder))) {
    const report = join(root, folder, name, ".vitest-report.json");
    if (!existsSync(report)) {
      missing.push(`${folder}/${name}`);
      continue;
    }
    const json = JSON.parse(readFileSync(report, "utf8"));
    passed += json.numPassedTests;
    failed += json.numFailedTests + (json.numRuntimeErrors ?? 0);
    if (json.success === false && json.numFailedTests === 0) failed += 1;
  }
}
if (missing.length > 0) console.log(`no test report from: ${missing.join(", ")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 || missing.length > 0 ? 1 : 0);
