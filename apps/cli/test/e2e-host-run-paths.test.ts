// What the host runs later from the workspace (git's config and hooks, .envrc, editor tasks): no
// local tool and no sandboxed command may write or create it. Asserted from the host afterwards:
// the file unchanged, the planted name absent.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  BWRAP_AVAILABLE,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  observationOf,
  e2eTest as test,
} from "./e2e-helpers.js";

const GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n";
const PAYLOAD = "touch /tmp/agent-host-run-pwned\n";

/** A workspace that is a git repository, and a policy that lets the model write and run commands. */
function setUp(sandbox: E2eSandbox, config: Record<string, unknown> = {}): string {
  const git = join(sandbox.workspace, ".git");
  mkdirSync(join(git, "hooks"), { recursive: true });
  writeFileSync(join(git, "config"), GIT_CONFIG);
  sandbox.writeConfig({
    runCommand: { allowShell: true },
    policy: {
      sandbox: "required",
      rules: ["write_file", "run_command"].map((tool) => ({ tool, decision: "allow" })),
    },
    ...config,
  });
  return git;
}

function call(sandbox: E2eSandbox, tool: string, input: unknown) {
  return sandbox.run(["call", tool, "--input", JSON.stringify(input), "--json"], { isolated: true });
}

describe.concurrent("files the host runs later", () => {
  test("write_file refuses to plant a hook, and creates nothing", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    const git = setUp(sandbox);
    const result = await call(sandbox, "write_file", { path: ".git/hooks/post-checkout", content: PAYLOAD });
    expect(observationOf(result.stdout)).toMatchObject({ ok: false, error: "tool_error" });
    expect(String(observationOf(result.stdout).message)).toContain("the host runs what is there later");
    expect(readdirSync(join(git, "hooks"))).toEqual([]);
    expect(readFileSync(join(git, "config"), "utf8")).toBe(GIT_CONFIG);
  });

  test("hostRunPaths decides: an empty list lets write_file create .envrc", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    setUp(sandbox, { hostRunPaths: [] });
    const result = await call(sandbox, "write_file", { path: ".envrc", content: "export A=1\n" });
    expect(observationOf(result.stdout)).toMatchObject({ ok: true });
    expect(readFileSync(join(sandbox.workspace, ".envrc"), "utf8")).toBe("export A=1\n");
  });

  test.skipIf(!BWRAP_AVAILABLE)(
    "run_command can neither change .git/config nor plant a hook, an .envrc or editor tasks, and leaves no trace",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      const git = setUp(sandbox);
      const attempt = await call(sandbox, "run_command", {
        command: "sh",
        args: [
          "-c",
          [
            "printf '[core]\\n\\tfsmonitor = touch /tmp/agent-host-run-pwned\\n' >> .git/config",
            "echo /tmp/elsewhere > .git/commondir",
            `echo '${PAYLOAD.trim()}' > .git/hooks/post-checkout`,
            `echo '${PAYLOAD.trim()}' > .envrc`,
            "mkdir -p .vscode; echo '{}' > .vscode/tasks.json",
            "echo done > ok.txt",
          ].join("; "),
        ],
      });
      expect(observationOf(attempt.stdout)).toMatchObject({ ok: true });
      expect(readFileSync(join(git, "config"), "utf8")).toBe(GIT_CONFIG);
      expect(existsSync(join(git, "hooks", "post-checkout"))).toBe(false);
      expect(readdirSync(git).sort()).toEqual(["config", "hooks"]);
      for (const name of [".envrc", ".vscode", ".idea", ".husky"]) {
        expect(existsSync(join(sandbox.workspace, name)), name).toBe(false);
      }
      expect(readFileSync(join(sandbox.workspace, "ok.txt"), "utf8")).toBe("done\n");
    },
  );
});
