import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect } from "vitest";
import { AS_INVOKED, CLI_BIN, E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

/** Runs `command args` to its end (stdin closed), with PATH and HOME only, as a shell would. */
function runCommand(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string> },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe.concurrent("hints print the command as the user invoked it", () => {
  test("through an `agent` link on PATH, the held call's hints say `agent approvals approve …`", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({ mcpServers: { s: sandbox.scriptableServer("s") } });
    const bin = join(sandbox.root, "bin");
    mkdirSync(bin);
    // What scripts/link-agent.sh makes: a link named `agent` to the built CLI, in a directory on PATH.
    symlinkSync(CLI_BIN, join(bin, "agent"));
    const held = await runCommand(
      "agent",
      ["--config", sandbox.configPath, "--state-dir", sandbox.stateDir, "call", "mcp__s__echo"],
      {
        cwd: sandbox.workspace,
        env: {
          // The directory of this node first, as where npm's global bin directory holds both.
          PATH: [bin, dirname(process.execPath), process.env.PATH ?? "/usr/bin:/bin"].join(":"),
          HOME: sandbox.root,
          AGENT_BWRAP: join(sandbox.root, "no-bwrap-here"),
        },
      },
    );
    expect(held.code, held.stderr).toBe(3);
    expect(held.stderr).toMatch(/Approve it with: {2}agent approvals approve apr_\S+\n/);
    expect(held.stderr).toMatch(/then run it with: agent resume run_\S+\n/);
  });

  test("as the repository's `pnpm agent` script, and as `node <path>` typed below the current directory", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const repositoryRoot = join(dirname(CLI_BIN), "..", "..", "..");
    const [script, relative, absolute] = await Promise.all([
      sandbox.run(["--help"], {
        bare: true,
        // What pnpm sets for `pnpm agent …` (the root package.json's "agent" script).
        env: {
          npm_lifecycle_event: "agent",
          npm_config_user_agent: "pnpm/12.4.2 npm/? node/v20.19.0 linux x64",
        },
      }),
      runCommand(process.execPath, ["apps/cli/dist/bin.js", "--help"], {
        cwd: repositoryRoot,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.root },
      }),
      sandbox.run(["--help"], { bare: true }),
    ]);
    expect(script.stdout).toMatch(/^Usage: pnpm agent \[--config FILE\]/);
    expect(script.stdout).toContain('"pnpm agent <command> --help"');
    expect(relative.stdout).toMatch(/^Usage: node apps\/cli\/dist\/bin\.js \[--config FILE\]/);
    expect(absolute.stdout.startsWith(`Usage: ${AS_INVOKED} [--config FILE]`)).toBe(true);
  });

  test("as `node <path>` where the path holds quotes, a newline and terminal controls: printable, and it pastes as that path", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const directory = join(sandbox.root, "it's \u001b]0;owned\u0007\n\u009b2J \u202edir");
    mkdirSync(directory);
    const script = join(directory, "bin.js");
    symlinkSync(CLI_BIN, script);
    const help = await runCommand(process.execPath, [script, "--help"], {
      cwd: sandbox.workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.root },
    });
    expect(help.code, help.stderr).toBe(0);
    const usage = /^Usage: node (.+) \[--config FILE\]/.exec(help.stdout);
    expect(usage, help.stdout.slice(0, 200)).not.toBeNull();
    const word = usage?.[1] ?? "";
    expect(word).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    const raw = [...help.stdout].filter(
      (character) => character !== "\n" && /[\p{Cc}\p{Cf}]/u.test(character),
    );
    expect(raw).toEqual([]);
    // What a user who pastes the hint into bash runs: the same file.
    const pasted = execFileSync("bash", ["-c", `printf %s ${word}`], {
      encoding: "utf8",
      env: { LC_ALL: "C.UTF-8" },
    });
    expect(pasted).toBe(script);
  });
});
