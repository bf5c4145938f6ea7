import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findExecutable } from "@agent/policy/bwrap";
import { describe, expect } from "vitest";
import {
  BWRAP_AVAILABLE,
  E2E_TIMEOUT_MS,
  firstText,
  observationOf,
  parseSingleJson,
  e2eTest as test,
  waitingIds,
} from "./e2e-helpers.js";
import { startLoopbackNpmRegistry } from "./loopback-npm-registry.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/npm-server", import.meta.url));
const SERVER_SCRIPT = join(FIXTURE, "server.mjs");

interface Listed {
  name: string;
  status: string;
  isolation: string;
  package: {
    installer: string;
    requested: string[];
    packages: { name: string; version: string; integrity: string | null }[];
  } | null;
  error: {
    code: string;
    message: string;
    stderr: string[];
    sandbox: { kind: string; target: string; grant: string; message: string } | null;
  } | null;
}

function listed(stdout: string): Listed[] {
  return (parseSingleJson(stdout) as { servers: Listed[] }).servers;
}

// Installs cost an npm run each (about two seconds alone, more on a busy machine), and each test
// runs the CLI up to five times.
const PACKAGE_TEST_TIMEOUT_MS = E2E_TIMEOUT_MS * 2;

describe.concurrent("package-runner servers (npx -y) under the sandbox", () => {
  test("write_file cannot plant a cache entry when the workspace is reached through a symbolic link", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    // As a home directory that is a link (/home/u -> /data/u) holding both the project and ~/.cache.
    const linked = join(sandbox.root, "linked-workspace");
    symlinkSync(sandbox.workspace, linked);
    sandbox.writeConfig({
      workspaceRoot: "linked-workspace",
      policy: { rules: [{ tool: "write_file", decision: "allow" }] },
    });
    const env = { AGENT_CACHE_DIR: join(linked, "cache") };
    const manifest = "cache/packages/npm/mcp-server-0123456789abcdef/manifest.json";
    const planted = await sandbox.run(
      [
        "call",
        "write_file",
        "--input",
        JSON.stringify({ path: manifest, content: "{}", createDirectories: true }),
        "--json",
      ],
      { env },
    );
    expect(observationOf(planted.stdout)).toMatchObject({ ok: false, error: "tool_error" });
    expect(existsSync(join(sandbox.workspace, "cache"))).toBe(false);
  });

  test.skipIf(!BWRAP_AVAILABLE)(
    "installed once outside the sandbox, then started isolated and offline; a refresh fetches again",
    { timeout: PACKAGE_TEST_TIMEOUT_MS },
    async ({ sandbox }) => {
      const registry = await startLoopbackNpmRegistry(FIXTURE);
      try {
        const first = registry.publish("1.0.0");
        const mcpServers = { mem: { command: "npx", args: ["-y", "@e2e/mcp-server"] } };
        const allowing = { sandbox: "required", rules: [{ tool: "mcp__mem__*", decision: "allow" }] };
        sandbox.writeConfig({ policy: allowing, mcpServers });
        const env = { npm_config_registry: registry.url };

        const installing = await sandbox.run(["mcp", "list", "--json"], { env });
        expect(installing.code, installing.stderr).toBe(0);
        expect(installing.stderr).toContain('installing @e2e/mcp-server@latest for server "mem"');
        expect(registry.requests).toContain("GET /@e2e/mcp-server");
        const [server] = listed(installing.stdout);
        expect(server).toMatchObject({
          name: "mem",
          status: "ready",
          isolation: "bwrap",
          package: {
            installer: "npm",
            requested: ["@e2e/mcp-server@latest"],
            packages: [{ name: "@e2e/mcp-server", version: "1.0.0", integrity: first.integrity }],
          },
        });

        // The second start: from the cache, inside the sandbox with no network; the registry hears nothing.
        registry.requests.length = 0;
        const call = await sandbox.run(["call", "mcp__mem__version", "--json"], { env });
        expect(call.code, call.stderr).toBe(0);
        expect(firstText(observationOf(call.stdout))).toBe("1.0.0");
        expect(registry.requests).toEqual([]);
        expect(call.stderr).not.toContain("installing");
        expect(sandbox.auditEvents()).toContainEqual(
          expect.objectContaining({
            type: "tool_call_decided",
            toolName: "mcp__mem__version",
            isolation: "bwrap",
          }),
        );
        const human = await sandbox.run(["mcp", "list"], { env });
        expect(human.stdout).toContain("isolation: bwrap, network none");
        expect(human.stdout).toContain("package: @e2e/mcp-server@1.0.0 (sha512-");
        expect(registry.requests).toEqual([]);

        // A call held for approval now: it was asked of the old package's code.
        sandbox.writeConfig({ policy: { sandbox: "required" }, mcpServers });
        const held = await sandbox.run(["call", "mcp__mem__version", "--json"], { env });
        expect(held.code, held.stderr).toBe(3);
        const { requestId } = waitingIds(held.stdout);
        sandbox.writeConfig({ policy: allowing, mcpServers });

        // A refresh asks the registry again and pins the new latest; the next start is offline again.
        const second = registry.publish("1.0.1");
        const refreshed = await sandbox.run(["mcp", "refresh", "mem", "--json"], { env });
        expect(refreshed.code, refreshed.stderr).toBe(0);
        expect(parseSingleJson(refreshed.stdout)).toMatchObject({
          servers: [
            {
              name: "mem",
              status: "refreshed",
              package: {
                packages: [{ name: "@e2e/mcp-server", version: "1.0.1", integrity: second.integrity }],
              },
              voidedApprovals: 1,
            },
          ],
        });
        expect(registry.requests).toContain("GET /@e2e/mcp-server");
        expect(registry.requests).toContain("GET /@e2e/mcp-server/-/e2e-mcp-server-1.0.1.tgz");

        const approvals = await sandbox.run(["approvals", "list", "--json"]);
        expect(
          (parseSingleJson(approvals.stdout) as { approvals: { id: string; status: string }[] }).approvals,
        ).toContainEqual(expect.objectContaining({ id: requestId, status: "voided" }));

        registry.requests.length = 0;
        const after = await sandbox.run(["call", "mcp__mem__version", "--json"], { env });
        expect(after.code, after.stderr).toBe(0);
        expect(firstText(observationOf(after.stdout))).toBe("1.0.1");
        expect(registry.requests).toEqual([]);
        const installs = sandbox.auditEvents().filter((event) => event.type === "package_install");
        expect(installs).toEqual([
          expect.objectContaining({ server: "mem", refresh: false, ok: true }),
          expect.objectContaining({ server: "mem", refresh: true, ok: true }),
        ]);
      } finally {
        await registry.close();
      }
    },
  );

  test.skipIf(!BWRAP_AVAILABLE)(
    "the cache is the harness's: inside the workspace, neither run_command nor write_file can change it",
    { timeout: PACKAGE_TEST_TIMEOUT_MS },
    async ({ sandbox }) => {
      const registry = await startLoopbackNpmRegistry(FIXTURE);
      try {
        registry.publish("1.0.0");
        sandbox.writeConfig({
          runCommand: { allowShell: true },
          policy: {
            sandbox: "required",
            rules: ["write_file", "run_command", "mcp__mem__*"].map((tool) => ({ tool, decision: "allow" })),
          },
          mcpServers: { mem: { command: "npx", args: ["-y", "@e2e/mcp-server"] } },
        });
        // The worst place for it: inside the workspace, where run_command may write and write_file works.
        const env = { npm_config_registry: registry.url, AGENT_CACHE_DIR: join(sandbox.workspace, "cache") };
        const installed = await sandbox.run(["mcp", "list"], { env });
        expect(installed.code, installed.stderr).toBe(0);
        const entries = join(sandbox.workspace, "cache", "packages", "npm");
        const [entry] = readdirSync(entries);
        const manifestPath = join(entries, String(entry), "manifest.json");
        const manifest = readFileSync(manifestPath, "utf8");
        const installDir = join(entries, String(entry), JSON.parse(manifest).installDir);
        const script = join(installDir, "node_modules", "@e2e", "mcp-server", "server.mjs");
        const code = readFileSync(script, "utf8");

        const call = (tool: string, input: unknown) =>
          sandbox.run(["call", tool, "--input", JSON.stringify(input), "--json"], { env });
        const attempt = await call("run_command", {
          command: "sh",
          args: [
            "-c",
            [
              `echo 'process.exit(1)' > '${script}'`,
              `echo '{}' > '${manifestPath}'`,
              `touch '${installDir}/planted'`,
              `mv '${installDir}' '${installDir}.moved'`,
              "echo done > ok.txt",
            ].join("; "),
          ],
        });
        expect(observationOf(attempt.stdout)).toMatchObject({ ok: true });
        expect(readFileSync(join(sandbox.workspace, "ok.txt"), "utf8")).toBe("done\n");
        expect(readFileSync(script, "utf8")).toBe(code);
        expect(readFileSync(manifestPath, "utf8")).toBe(manifest);
        expect(existsSync(join(installDir, "planted"))).toBe(false);
        expect(existsSync(`${installDir}.moved`)).toBe(false);

        const written = await call("write_file", {
          path: `cache/packages/npm/${entry}/manifest.json`,
          content: "{}",
        });
        expect(observationOf(written.stdout)).toMatchObject({ ok: false, error: "tool_error" });
        expect(readFileSync(manifestPath, "utf8")).toBe(manifest);

        const served = await call("mcp__mem__version", {});
        expect(firstText(observationOf(served.stdout))).toBe("1.0.0");
      } finally {
        await registry.close();
      }
    },
  );

  test("the registry may come from the server's project's .npmrc, which the cache does not keep", {
    timeout: PACKAGE_TEST_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const registry = await startLoopbackNpmRegistry(FIXTURE);
    try {
      registry.publish("1.2.0");
      const project = join(sandbox.root, "project");
      mkdirSync(project);
      writeFileSync(join(project, "package.json"), "{}");
      writeFileSync(join(project, ".npmrc"), `registry=${registry.url}/\n`);
      sandbox.writeConfig({
        mcpServers: { mem: { command: "npx", args: ["--yes", "@e2e/mcp-server@^1"], cwd: "project" } },
      });
      const result = await sandbox.run(["mcp", "list", "--json"]);
      expect(result.code, result.stderr).toBe(0);
      expect(listed(result.stdout)[0]?.package?.packages).toEqual([
        expect.objectContaining({ name: "@e2e/mcp-server", version: "1.2.0" }),
      ]);
      expect(registry.requests).toContain("GET /@e2e/mcp-server");
      const entries = join(sandbox.root, ".cache", "agent", "packages", "npm");
      for (const entry of readdirSync(entries)) {
        for (const install of readdirSync(join(entries, entry)).filter((name) =>
          name.startsWith("install-"),
        )) {
          expect(existsSync(join(entries, entry, install, ".npmrc"))).toBe(false);
        }
      }
    } finally {
      await registry.close();
    }
  });

  test("a package that cannot be installed fails its server alone, saying why", {
    timeout: PACKAGE_TEST_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const registry = await startLoopbackNpmRegistry(FIXTURE);
    try {
      // Nothing published: the registry answers 404.
      sandbox.writeConfig({
        mcpServers: {
          missing: { command: "npx", args: ["-y", "@e2e/mcp-server@2"] },
          good: sandbox.scriptableServer("good"),
        },
      });
      const result = await sandbox.run(["mcp", "list", "--json"], {
        env: { npm_config_registry: registry.url },
      });
      expect(result.code).toBe(1);
      const servers = listed(result.stdout);
      expect(servers.find((server) => server.name === "good")?.status).toBe("ready");
      const missing = servers.find((server) => server.name === "missing");
      expect(missing?.status).toBe("failed");
      expect(missing?.package).toBeNull();
      expect(missing?.error?.message).toContain("npm exited with code");
      expect(missing?.error?.message).toContain("404");
    } finally {
      await registry.close();
    }
  });

  test("mcp refresh names only package-runner servers; without any it has nothing to do", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({ mcpServers: { s: sandbox.scriptableServer("s") } });
    const named = await sandbox.run(["mcp", "refresh", "s"]);
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('server "s" is not started through npx, npm exec, uvx or uv tool run');
    const unknown = await sandbox.run(["mcp", "refresh", "nope"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no MCP server named "nope"');
    const all = await sandbox.run(["mcp", "refresh"]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain("nothing to refresh");
    // No server was started by any of them.
    expect(sandbox.records("s")).toEqual([]);
  });

  test.skipIf(findExecutable("uv", process.env.PATH) !== undefined)(
    "a uvx server without uv on PATH fails with what to install",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      sandbox.writeConfig({ mcpServers: { fetch: { command: "uvx", args: ["mcp-server-fetch"] } } });
      const result = await sandbox.run(["mcp", "list", "--json"]);
      expect(result.code).toBe(1);
      const [server] = listed(result.stdout);
      expect(server?.error?.message).toContain("uv is not on PATH");
      expect(server?.error?.message).toContain("https://docs.astral.sh/uv/");
    },
  );
});

describe.concurrent("why a sandboxed server failed", () => {
  test.skipIf(!BWRAP_AVAILABLE)(
    "the stderr line naming the cause, and what the sandbox denied with the key that grants it",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      const missingModule = join(sandbox.root, "needs-plugin.cjs");
      writeFileSync(missingModule, 'require("./plugin-that-is-not-there.cjs");\n');
      const readsHome = join(sandbox.root, "reads-home.mjs");
      writeFileSync(
        readsHome,
        'import { readFileSync } from "node:fs";\nreadFileSync(process.env.HOME + "/.e2e-server.json");\n',
      );
      // It exists on this machine; the sandbox's home is empty.
      writeFileSync(join(sandbox.root, ".e2e-server.json"), "{}");
      sandbox.writeConfig({
        policy: { sandbox: "required" },
        mcpServers: {
          net: { command: process.execPath, args: [SERVER_SCRIPT, "--reach", "downloads.example.org"] },
          module: { command: process.execPath, args: [missingModule] },
          home: { command: process.execPath, args: [readsHome] },
        },
      });

      const json = await sandbox.run(["mcp", "list", "--json"]);
      expect(json.code).toBe(1);
      const byName = new Map(listed(json.stdout).map((server) => [server.name, server]));
      expect(byName.get("net")?.error).toMatchObject({
        stderr: [expect.stringContaining("getaddrinfo EAI_AGAIN downloads.example.org")],
        sandbox: {
          kind: "network",
          target: "downloads.example.org",
          grant: "mcpServers.net.sandbox.network",
        },
      });
      const module = byName.get("module")?.error;
      expect(module?.stderr).toContainEqual(
        expect.stringContaining("Cannot find module './plugin-that-is-not-there.cjs'"),
      );
      expect(module?.stderr.join("\n")).not.toContain("requireStack");
      expect(byName.get("home")?.error?.sandbox).toMatchObject({
        kind: "path",
        // (The temporary directory's random name looks like a token to the redactor.)
        target: expect.stringMatching(/^\/tmp\/.+\/\.e2e-server\.json$/),
        grant: "mcpServers.home.sandbox.read",
      });

      const human = await sandbox.run(["mcp", "list"]);
      expect(human.stdout).toContain("stderr: Error: Cannot find module './plugin-that-is-not-there.cjs'");
      expect(human.stdout).not.toContain("requireStack");
      expect(human.stdout).toContain(
        'sandbox: the sandbox denied it a connection to downloads.example.org (it has no network); to allow it, add "downloads.example.org" to mcpServers.net.sandbox.network',
      );
      expect(human.stdout).toContain(`add it to mcpServers.home.sandbox.read`);
    },
  );
});
