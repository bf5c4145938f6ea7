import { describe, expect } from "vitest";
import { COMMAND_OPTIONS, type CommandName } from "../src/cli-commands.js";
import { AS_INVOKED, E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

// Every command the CLI parses and dispatches, but the ones that are help themselves.
const COMMANDS = (Object.keys(COMMAND_OPTIONS) as CommandName[]).filter(
  (command) => command !== "help" && command !== "version" && command !== "usage",
);

describe("per-command help", () => {
  test("every command prints its own usage, options and an example for --help and for help <command>", {
    timeout: E2E_TIMEOUT_MS * 2,
  }, async ({ sandbox }) => {
    const global = await sandbox.run(["--help"], { bare: true });
    expect(global.code).toBe(0);
    for (const command of COMMANDS) {
      const words = command.split(" ");
      const [flag, named] = await Promise.all([
        sandbox.run([...words, "--help"], { bare: true }),
        sandbox.run(["help", ...words], { bare: true }),
      ]);
      for (const result of [flag, named]) {
        expect(result.code, `${command}: ${result.stderr}`).toBe(0);
        expect(result.stdout, command).toMatch(
          new RegExp(`^Usage: ${escapeRegExp(`${AS_INVOKED} ${command}`)}\\b`),
        );
        expect(result.stdout, command).toContain("\nOptions:\n");
        expect(result.stdout, command).toContain(`\nExample:\n  ${AS_INVOKED} ${command}`);
        expect(result.stdout, command).not.toBe(global.stdout);
      }
      expect(named.stdout).toBe(flag.stdout);
    }
  });

  test("help for a command that does not exist is a usage error; a group alone lists its subcommands", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const [unknown, group] = await Promise.all([
      sandbox.run(["help", "frobnicate"], { bare: true }),
      sandbox.run(["approvals"], { bare: true }),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('No command "frobnicate" to show help for.');
    expect(group.code).toBe(2);
    expect(group.stderr).toContain(`"${AS_INVOKED} approvals" needs a subcommand:`);
    expect(group.stderr).toContain("  approvals approve <id>");
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
