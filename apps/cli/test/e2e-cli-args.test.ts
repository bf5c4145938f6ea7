import { readFileSync } from "node:fs";
import { describe, expect } from "vitest";
import { AS_INVOKED, E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe.concurrent("argument parsing", () => {
  test("--version prints the package's version and nothing else", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    const result = await sandbox.run(["--version"], { bare: true });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${PACKAGE_VERSION}\n`);
    expect(result.stderr).toBe("");
  });

  test("unknown flags and missing values are our own one-line usage errors, exit 2", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    const [unknown, missing, ambiguous, boolValue] = await Promise.all([
      sandbox.run(["mcp", "list", "--frobnicate"]),
      sandbox.run(["call", "read_file", "--input"]),
      sandbox.run(["call", "read_file", "--input", "--json"]),
      sandbox.run(["audit", "--json=yes"]),
    ]);
    const expected: [typeof unknown, string][] = [
      [unknown, `agent: Unknown option "--frobnicate". Run "${AS_INVOKED} --help" for usage.\n`],
      [missing, `agent: "--input" needs a value. Run "${AS_INVOKED} --help" for usage.\n`],
      [ambiguous, `agent: "--input" needs a value. Run "${AS_INVOKED} --help" for usage.\n`],
      [boolValue, `agent: "--json" takes no value. Run "${AS_INVOKED} --help" for usage.\n`],
    ];
    for (const [result, stderr] of expected) {
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(stderr);
      expect(result.stderr).not.toContain("parseArgs");
      expect(result.stderr).not.toContain("positional");
    }
  });

  test("bare agent prints the usage on stderr and exits 2; agent approvals lists its subcommands", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const [bare, approvals, runs] = await Promise.all([
      sandbox.run([], { bare: true }),
      sandbox.run(["approvals"], { bare: true }),
      sandbox.run(["runs"], { bare: true }),
    ]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toBe("");
    expect(bare.stderr.startsWith(`Usage: ${AS_INVOKED} `)).toBe(true);
    expect(bare.stderr).toContain("Commands:");
    expect(approvals.code).toBe(2);
    expect(approvals.stdout).toBe("");
    expect(approvals.stderr).toContain(`"${AS_INVOKED} approvals" needs a subcommand:`);
    for (const subcommand of ["approvals list", "approvals approve <id>", "approvals deny <id>"]) {
      expect(approvals.stderr).toContain(subcommand);
    }
    expect(approvals.stderr).not.toContain("runs list");
    expect(runs.code).toBe(2);
    expect(runs.stderr).toContain("runs show <runId>");
  });
});
