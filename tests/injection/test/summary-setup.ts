import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { SCENARIO_RESULTS, summaryLine } from "./scenario-results.js";

/**
 * Gives the scenarios a directory to record their results in and, when the run ends, prints the
 * suite's one summary line (`attacks stopped N/N, benign unattended M/M`) and removes the directory.
 */
export default function setup(project: TestProject): () => void {
  const directory = mkdtempSync(join(tmpdir(), "agent-injection-results-"));
  project.provide(SCENARIO_RESULTS, directory);
  return () => {
    try {
      process.stdout.write(`${summaryLine(directory)}\n`);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  };
}
