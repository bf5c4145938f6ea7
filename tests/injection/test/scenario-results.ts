import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The key under which the global setup provides the directory scenarios record their results in. */
export const SCENARIO_RESULTS = "injectionScenarioResults";

declare module "vitest" {
  export interface ProvidedContext {
    [SCENARIO_RESULTS]: string;
  }
}

/** Whether a scenario is an attack (must be stopped) or a benign task (must run unattended). */
export type ScenarioKind = "attack" | "benign";

/** What one scenario recorded: passed only once its assertions and its cleanup succeeded. */
export interface ScenarioResult {
  kind: ScenarioKind;
  name: string;
  passed: boolean;
}

/** The suite's one summary line, from the results recorded in `directory`. */
export function summaryLine(directory: string): string {
  const results = readdirSync(directory).map(
    (file) => JSON.parse(readFileSync(join(directory, file), "utf8")) as ScenarioResult,
  );
  const count = (kind: ScenarioKind) => {
    const ofKind = results.filter((result) => result.kind === kind);
    return `${ofKind.filter((result) => result.passed).length}/${ofKind.length}`;
  };
  return `attacks stopped ${count("attack")}, benign unattended ${count("benign")}`;
}
