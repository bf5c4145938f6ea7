import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject, test } from "vitest";
import type { ConfigOptions } from "./injection-config.js";
import { CLI_LIMIT_MS, InjectionWorld } from "./injection-world.js";
import { SCENARIO_RESULTS, type ScenarioKind, type ScenarioResult } from "./scenario-results.js";

/** What a scenario needs: how many CLI processes it runs (its time limit) and its configuration. */
export interface ScenarioOptions extends ConfigOptions {
  /** CLI processes the scenario runs one after another; each may take up to {@link CLI_LIMIT_MS}. */
  cliRuns: number;
  /**
   * An attack the flow guard's documentation names as beyond it (quoted here): the test passes
   * while the attack still gets through (and the summary counts it as not stopped); once the guard
   * stops it, the test fails so that someone drops the marker.
   */
  knownLimit?: string;
}

/** An attack: the test passes only if the harmful effect never reached a server. */
export function attack(
  name: string,
  options: ScenarioOptions,
  body: (world: InjectionWorld) => Promise<void>,
): void {
  scenario("attack", name, options, body);
}

/** A benign task: the test passes only if it ran unattended and its effect reached the server. */
export function benign(
  name: string,
  options: ScenarioOptions,
  body: (world: InjectionWorld) => Promise<void>,
): void {
  scenario("benign", name, options, body);
}

function scenario(
  kind: ScenarioKind,
  name: string,
  options: ScenarioOptions,
  body: (world: InjectionWorld) => Promise<void>,
): void {
  // Startup and cleanup (a few seconds at most) on top of the CLI processes' own limits.
  const timeout = options.cliRuns * CLI_LIMIT_MS + 15_000;
  const declare = options.knownLimit === undefined ? test : test.fails;
  declare(options.knownLimit === undefined ? name : `${name} (known limit)`, { timeout }, async () => {
    const file = join(
      inject(SCENARIO_RESULTS),
      `${kind}-${createHash("sha256").update(name).digest("hex").slice(0, 16)}.json`,
    );
    // Recorded as failed first: a scenario that throws, or times out, counts as not passed.
    const record = (passed: boolean) =>
      writeFileSync(file, JSON.stringify({ kind, name, passed } satisfies ScenarioResult));
    record(false);
    const world = await InjectionWorld.open(options);
    try {
      await body(world);
    } finally {
      await world.close();
    }
    record(true);
  });
}
