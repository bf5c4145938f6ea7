// `agent audit` reads trails written before event vocabulary 2 (four records a governed call):
// test/fixtures/audit-trail-v1.jsonl was written by the release before it (`agent call` three times
// against the bench echo server: allowed, invalid input, unknown tool). Do not regenerate it with
// the current code: it stands for the trails already on users' disks.
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

const FIXTURE = join(import.meta.dirname, "fixtures/audit-trail-v1.jsonl");
const ALLOWED_RUN = "run_28af611a-08c5-4d43-9786-3e52a1805c53";

function parseLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.concurrent("agent audit on a vocabulary 1 trail", () => {
  test("prints every record and filters by run and tool as on a current trail", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    mkdirSync(sandbox.stateDir, { recursive: true });
    copyFileSync(FIXTURE, join(sandbox.stateDir, "audit.jsonl"));
    const fixtureLines = readFileSync(FIXTURE, "utf8").trim().split("\n");
    const [all, byRun, byTool, human, story] = await Promise.all([
      sandbox.run(["audit", "--json"]),
      sandbox.run(["audit", "--json", "--run", ALLOWED_RUN]),
      sandbox.run(["audit", "--json", "--tool", "mcp__s__nope"]),
      sandbox.run(["audit", "--verbose"]),
      sandbox.run(["audit", "--run", ALLOWED_RUN]),
    ]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toBe("");
    expect(parseLines(all.stdout)).toEqual(fixtureLines.map((line) => JSON.parse(line)));
    expect(parseLines(byRun.stdout).map((event) => event.type)).toEqual([
      "tool_call_started",
      "tool_call_decided",
      "tool_call_finished",
    ]);
    expect(parseLines(byTool.stdout).map((event) => [event.type, event.code])).toEqual([
      ["tool_call_started", undefined],
      ["tool_call_finished", "unknown_tool"],
    ]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout.trimEnd().split("\n")).toHaveLength(fixtureLines.length);
    // The story reads a version 1 call as it reads a current one: decided, then finished.
    expect(story.code, story.stderr).toBe(0);
    expect(story.stdout).toMatch(/call \S+ \(\S+\) allowed by /);
    expect(story.stdout).toMatch(/call \S+ \(\S+\) finished ok in /);
  });
});
