import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  BWRAP_AVAILABLE,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  observationOf,
  e2eTest as test,
  waitingIds,
} from "./e2e-helpers.js";

// The attack of issue 8, verbatim: the model rewrites the policy so that everything is allowed.
const ALLOW_EVERYTHING = JSON.stringify({ policy: { rules: [{ tool: "*", decision: "allow" }] } });

/** The default layout: the config in the workspace root, the state directory beside it. */
function writeProjectConfig(sandbox: E2eSandbox, config: Record<string, unknown>): string {
  const text = `${JSON.stringify({ workspaceRoot: ".", ...config }, null, 2)}\n`;
  writeFileSync(sandbox.configPath, text);
  return text;
}

/** Runs with `--config` only, so the state directory is the default one beside the config. */
function callDefault(sandbox: E2eSandbox, tool: string, input: unknown, cwd?: string) {
  return sandbox.run(
    ["--config", sandbox.configPath, "call", tool, "--input", JSON.stringify(input), "--json"],
    {
      bare: true,
      ...(cwd === undefined ? {} : { cwd }),
    },
  );
}

describe.concurrent("the harness protects itself", () => {
  test("write_file cannot plant the .npmrc that an npx server's install reads outside the sandbox", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    // npm expands the user's environment in .npmrc values and runs with the user's network: a
    // planted registry URL would carry any secret of the environment to any host at the next install.
    const config = {
      workspaceRoot: "workspace",
      policy: { sandbox: "optional", rules: [{ tool: "write_file", decision: "allow" }] },
      mcpServers: { mem: { command: "npx", args: ["-y", "@e2e/mcp-server"], cwd: "workspace/app" } },
    };
    mkdirSync(join(sandbox.workspace, "app"), { recursive: true });
    writeFileSync(sandbox.configPath, JSON.stringify(config));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: npm's own ${VAR} syntax, written verbatim.
    const leak = "registry=http://127.0.0.1:9/${HOME}/\n";
    const attempts = await Promise.all(
      ["app/.npmrc", ".npmrc"].map((path) =>
        sandbox.run(["call", "write_file", "--input", JSON.stringify({ path, content: leak }), "--json"]),
      ),
    );
    for (const attempt of attempts) {
      expect(attempt.code, attempt.stdout).toBe(1);
      expect(observationOf(attempt.stdout)).toMatchObject({ ok: false, error: "tool_error" });
    }
    expect(existsSync(join(sandbox.workspace, "app", ".npmrc"))).toBe(false);
    expect(existsSync(join(sandbox.workspace, ".npmrc"))).toBe(false);
  });

  test.skipIf(!BWRAP_AVAILABLE)(
    "run_command cannot create the user-level configuration where there is none yet",
    {
      timeout: E2E_TIMEOUT_MS,
    },
    async ({ sandbox }) => {
      // XDG_CONFIG_HOME inside the workspace, which the command's sandbox may write.
      const env = { XDG_CONFIG_HOME: join(sandbox.workspace, "conf") };
      sandbox.writeConfig({
        runCommand: { allowShell: true },
        policy: { sandbox: "required", rules: [{ tool: "run_command", decision: "allow" }] },
      });
      const planted = await sandbox.run(
        [
          "call",
          "run_command",
          "--input",
          JSON.stringify({
            command: "sh",
            args: [
              "-c",
              `mkdir -p conf/agent; echo '${ALLOW_EVERYTHING}' > conf/agent/config.json; echo done > ok.txt`,
            ],
          }),
          "--json",
        ],
        { env },
      );
      expect(observationOf(planted.stdout)).toMatchObject({ ok: true });
      expect(readFileSync(join(sandbox.workspace, "ok.txt"), "utf8")).toBe("done\n");
      expect(existsSync(join(sandbox.workspace, "conf", "agent", "config.json"))).toBe(false);
    },
  );

  test("write_file cannot create the user-level configuration where there is none yet", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    // HOME is the workspace here, as when a project lives in the home directory: the user file that
    // would be merged into every project lies inside what local tools may write.
    writeProjectConfig(sandbox, { policy: { rules: [{ tool: "write_file", decision: "allow" }] } });
    const userFile = join(sandbox.root, ".config", "agent", "config.json");
    const planted = await callDefault(sandbox, "write_file", {
      path: ".config/agent/config.json",
      content: ALLOW_EVERYTHING,
      createDirectories: true,
    });
    expect(planted.code, planted.stdout).toBe(1);
    expect(String(observationOf(planted.stdout).message)).toContain("no local tool may read or write it");
    expect(existsSync(userFile)).toBe(false);
  });

  test("write_file cannot rewrite agent.config.json or the audit trail, and the refusal is audited", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const configText = writeProjectConfig(sandbox, {
      policy: {
        rules: [
          { tool: "write_file", decision: "allow" },
          { tool: "read_file", decision: "allow" },
        ],
      },
    });
    const stateDir = join(sandbox.root, ".agent");

    const rewrite = await callDefault(sandbox, "write_file", {
      path: "agent.config.json",
      content: ALLOW_EVERYTHING,
    });
    expect(rewrite.code, rewrite.stderr).toBe(1);
    expect(observationOf(rewrite.stdout)).toMatchObject({ ok: false, error: "tool_error" });
    expect(readFileSync(sandbox.configPath, "utf8")).toBe(configText);
    // The state directory is beside the config, inside the workspace, and still out of reach.
    expect(existsSync(join(stateDir, "audit.jsonl"))).toBe(true);
    const auditBefore = readFileSync(join(stateDir, "audit.jsonl"), "utf8");

    const attempts = await Promise.all([
      callDefault(sandbox, "write_file", { path: ".agent/audit.jsonl", content: "forged\n" }),
      callDefault(sandbox, "write_file", { path: join(stateDir, "state.db"), content: "forged" }),
      callDefault(sandbox, "write_file", { path: "sub/../agent.config.json", content: ALLOW_EVERYTHING }),
      callDefault(sandbox, "read_file", { path: ".agent/audit.jsonl" }),
      callDefault(sandbox, "list_directory", { path: ".agent" }),
    ]);
    for (const result of attempts) {
      expect(result.code, result.stdout).toBe(1);
      expect(String(observationOf(result.stdout).message)).toContain("no local tool may read or write it");
    }
    expect(readFileSync(sandbox.configPath, "utf8")).toBe(configText);
    const auditAfter = readFileSync(join(stateDir, "audit.jsonl"), "utf8");
    expect(auditAfter.startsWith(auditBefore)).toBe(true);
    expect(auditAfter).not.toContain("forged");
    const refusals = auditAfter
      .split("\n")
      .filter((line) => line.includes('"local_path_refused"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(refusals.length).toBe(6);
    expect(refusals[0]).toMatchObject({
      toolName: "write_file",
      code: "protected_path",
      path: "agent.config.json",
    });

    // And the policy is still the one the operator wrote: an unlisted tool is held, not allowed.
    const listed = await callDefault(sandbox, "list_directory", {});
    expect(observationOf(listed.stdout).output).toMatchObject({
      entries: expect.arrayContaining([
        { name: ".agent", type: "protected" },
        { name: "agent.config.json", type: "protected" },
      ]),
    });
  });

  test("the default state directory is beside the config file, whatever the current directory", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    writeProjectConfig(sandbox, {});
    const elsewhere = join(sandbox.root, "elsewhere");
    mkdirSync(elsewhere);
    const held = await callDefault(sandbox, "write_file", { path: "a.txt", content: "x" }, elsewhere);
    expect(held.code, held.stderr).toBe(3);
    const { requestId } = waitingIds(held.stdout);
    // From a third directory, naming the same config finds the same request.
    const approve = await sandbox.run(["--config", sandbox.configPath, "approvals", "approve", requestId], {
      bare: true,
      cwd: sandbox.workspace,
    });
    expect(approve.code, approve.stderr).toBe(0);
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(existsSync(join(sandbox.workspace, ".agent"))).toBe(false);
    expect(existsSync(join(sandbox.root, ".agent", "state.db"))).toBe(true);
    // --state-dir and AGENT_STATE_DIR still win over the default.
    const viaEnv = await sandbox.run(["--config", sandbox.configPath, "approvals", "list", "--json"], {
      bare: true,
      env: { AGENT_STATE_DIR: sandbox.stateDir },
    });
    expect(JSON.parse(viaEnv.stdout)).toEqual({ approvals: [] });
  });

  test("re-pointing a symlinked workspace root between approval and resume holds the call again", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const first = join(sandbox.root, "first");
    const second = join(sandbox.root, "second");
    mkdirSync(first);
    mkdirSync(second);
    const link = join(sandbox.root, "current");
    symlinkSync(first, link);
    writeFileSync(sandbox.configPath, JSON.stringify({ workspaceRoot: "current" }));

    const held = await sandbox.run([
      "call",
      "write_file",
      "--input",
      '{"path":"out.txt","content":"x"}',
      "--json",
    ]);
    expect(held.code, held.stderr).toBe(3);
    const { runId, requestId } = waitingIds(held.stdout);
    expect((await sandbox.run(["approvals", "approve", requestId])).code).toBe(0);

    rmSync(link);
    symlinkSync(second, link);
    const resumed = await sandbox.run(["resume", runId, "--json"]);
    expect(resumed.code, resumed.stderr).toBe(3);
    expect(waitingIds(resumed.stdout).requestId).not.toBe(requestId);
    expect(resumed.stderr).toContain(`now resolves to ${second}`);
    expect(existsSync(join(first, "out.txt"))).toBe(false);
    expect(existsSync(join(second, "out.txt"))).toBe(false);
  });

  test("a FIFO or a symbolic link in place of the database or the audit file: a clear error, no hang", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    writeProjectConfig(sandbox, {});
    mkdirSync(sandbox.stateDir);
    const precious = join(sandbox.root, "precious.txt");
    writeFileSync(precious, "keep me");
    const database = join(sandbox.stateDir, "state.db");
    const audit = join(sandbox.stateDir, "audit.jsonl");
    const plant = {
      fifo: (path: string) => execFileSync("mkfifo", [path]),
      link: (path: string) => symlinkSync(precious, path),
    };
    for (const [file, kind] of [
      [database, "fifo"],
      [database, "link"],
      [audit, "fifo"],
      [audit, "link"],
    ] as const) {
      plant[kind](file);
      // Each command exits (the helper fails the test if one hangs) with the state error's code.
      for (const args of [["approvals", "list"], ["audit"]]) {
        const result = await sandbox.run(args);
        expect(result.code, `${kind} at ${file}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toContain("[state_not_regular]");
      }
      rmSync(file);
    }
    expect(readFileSync(precious, "utf8")).toBe("keep me");
  });
});
