/**
 * The official MCP conformance suite against our client under test, on loopback: one test per spec
 * revision the pinned suite freezes requirements for, each running that revision's required client
 * scenarios (and its not-scored ones, reported) through scripts/conformance/run.mjs, strictly (no
 * timing check waived). A revision fails on a required scenario that fails and is not listed in
 * scripts/conformance/expected-failures.json, or on one listed there that passes. The time limit
 * derives from what the runner waits for: each scenario's own limit, a few at a time.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  CONCURRENCY,
  requirements,
  SCENARIO_TIMEOUT_MS,
  specVersions,
} from "../../../scripts/conformance/run.mjs";

const runner = fileURLToPath(new URL("../../../scripts/conformance/run.mjs", import.meta.url));
/** Bundling the client under test once per run. */
const BUNDLE_BUDGET_MS = 120_000;

function runRevision(specVersion: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [runner, "--spec-version", specVersion], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the official conformance suite's client scenarios", () => {
  for (const specVersion of specVersions()) {
    const { required, notScored } = requirements(specVersion);
    const rounds = Math.ceil((required.length + notScored.length) / CONCURRENCY);
    it(`holds at ${specVersion}`, { timeout: BUNDLE_BUDGET_MS + rounds * SCENARIO_TIMEOUT_MS }, async () => {
      const { code, output } = await runRevision(specVersion);
      expect(output).toMatch(
        new RegExp(`${specVersion}: \\d+/${required.length} required passed, 0 unexpected`),
      );
      expect(code, output).toBe(0);
    });
  }
});
