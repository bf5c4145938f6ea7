import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, observationOf, e2eTest as test } from "./e2e-helpers.js";

const BYTES = 300_000;

describe.concurrent("tool results are capped before a terminal sees them", () => {
  test("a huge result shows its beginning; the run record is small; the whole is a file named by its sha256", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { defaults: { external: "allow" } },
      mcpServers: { big: sandbox.misbehavingServer("big", "huge-message") },
    });
    const input = JSON.stringify({ bytes: BYTES });

    const human = await sandbox.run(["call", "mcp__big__huge", "--input", input]);
    const json = await sandbox.run(["call", "mcp__big__huge", "--input", input, "--json"]);

    expect(human.code).toBe(0);
    // The default cap: 100,000 characters, marker included.
    expect(human.stdout.length).toBeLessThanOrEqual(100_001);
    expect(human.stdout).toMatch(
      /\[output truncated: showing the first \d+ of 300000 characters \(300000 bytes, sha256 [0-9a-f]{64}\)\]/,
    );
    const sha256 = createHash("sha256").update("x".repeat(BYTES)).digest("hex");
    const file = join(sandbox.stateDir, "outputs", `${sha256}.txt`);
    expect(human.stderr).toContain(`the whole output is in ${file}`);
    expect(readFileSync(file, "utf8")).toBe("x".repeat(BYTES));
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const observation = observationOf(json.stdout);
    expect(json.stdout.length).toBeLessThan(101_000);
    expect(observation.outputTruncated).toEqual({ chars: BYTES, bytes: BYTES, sha256, file });
    // Two runs of 300 KB each, yet the state database holds only the capped outcomes.
    expect(statSync(join(sandbox.stateDir, "state.db")).size).toBeLessThan(BYTES);
  });

  test("the cap is configurable, and a result within it is shown whole", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    sandbox.writeConfig({
      toolOutputMaxChars: 1_000,
      policy: { defaults: { external: "allow" } },
      mcpServers: { big: sandbox.misbehavingServer("big", "huge-message") },
    });
    const small = await sandbox.run(["call", "mcp__big__huge", "--input", '{"bytes":900}', "--json"]);
    const large = await sandbox.run(["call", "mcp__big__huge", "--input", '{"bytes":5000}']);
    expect(observationOf(small.stdout).outputTruncated).toBeUndefined();
    expect(large.stdout.length).toBeLessThanOrEqual(1_001);
    expect(large.stdout).toContain("of 5000 characters");
  });
});
