import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect } from "vitest";
import {
  type AgentResult,
  AS_INVOKED,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  parseSingleJson,
  e2eTest as test,
} from "./e2e-helpers.js";

/** Writes `text` as the configuration file, verbatim. */
function writeConfigText(sandbox: E2eSandbox, text: string): void {
  writeFileSync(sandbox.configPath, text);
}

/** A configuration error: exit 2, nothing on stdout (even with --json), one `agent:` message on stderr. */
function expectConfigError(result: AgentResult, code: string): void {
  expect(result.code, result.stderr).toBe(2);
  expect(result.stdout).toBe("");
  expect(result.stderr).toMatch(/^agent: /);
  expect(result.stderr).toContain(`[${code}]`);
}

const SECRET = "hunter2-do-not-print";

describe.concurrent("configuration errors", () => {
  test("a bad field exits 2 naming the file and the field path, never the value", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    writeConfigText(
      sandbox,
      JSON.stringify({
        toolTimeoutMs: SECRET,
        policy: { defaults: { write: "maybe" }, rules: [{ tool: "not a name", decision: "allow" }] },
        mcpServer: {},
        mcpServers: {
          docs: { command: "node", timeoutMs: `${SECRET}-too` },
          a__b: { command: "node" },
          legacy: { type: "sse", url: "http://127.0.0.1:1/sse", idleTimeoutMs: 0 },
        },
      }),
    );

    const results = await Promise.all([
      sandbox.run(["mcp", "list", "--json"]),
      sandbox.run(["call", "read_file", "--input", '{"path":"x"}', "--json"]),
    ]);

    for (const result of results) {
      expectConfigError(result, "config_invalid");
      expect(result.stderr).toContain(sandbox.configPath);
      for (const path of [
        "toolTimeoutMs",
        "policy.defaults.write",
        "policy.rules[0].tool",
        "mcpServers.docs.timeoutMs",
        "mcpServers.a__b",
        "mcpServers.legacy.idleTimeoutMs",
      ]) {
        expect(result.stderr).toContain(`- ${path}: `);
      }
      // A typo'd key is named, with the keys allowed there.
      expect(result.stderr).toMatch(/unknown key "mcpServer"; allowed keys here: .*mcpServers/);
      expect(result.stderr).not.toContain(SECRET);
    }
    // Nothing ran: no state was needed to report a bad configuration.
    expect(sandbox.auditEvents()).toEqual([]);
  });

  test("invalid JSON names line and column; a missing file says how to point at one", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    writeConfigText(sandbox, `{\n  "workspaceRoot": "workspace",\n  "toolTimeoutMs": 1000,\n}\n`);
    const [invalidJson, missing] = await Promise.all([
      sandbox.run(["mcp", "list", "--json"]),
      sandbox.run(["mcp", "list"], { bare: true, env: { AGENT_CONFIG: join(sandbox.root, "absent.json") } }),
    ]);

    expectConfigError(invalidJson, "config_invalid_json");
    expect(invalidJson.stderr).toContain(`${sandbox.configPath}:4:1:`);
    expectConfigError(missing, "config_not_found");
    expect(missing.stderr).toContain(join(sandbox.root, "absent.json"));
    expect(missing.stderr).toContain("--config");
  });

  test("usage errors exit 2 with a hint", { timeout: E2E_TIMEOUT_MS }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    const results = await Promise.all([
      sandbox.run(["frobnicate"]),
      sandbox.run(["call", "read_file", "--input", "{not json"]),
      sandbox.run(["tools", "--format", "xml"]),
      sandbox.run(["approvals", "approve"]),
    ]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`Run "${AS_INVOKED} --help" for usage.`);
    }
    const help = await sandbox.run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(`Usage: ${AS_INVOKED}`);
  });
});

describe.concurrent("environment variables in the configuration", () => {
  test("a server whose variable is unset fails alone, named with the variable; the others and local tools work", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__*", decision: "allow" }] },
      mcpServers: {
        docs: sandbox.scriptableServer("docs", {
          env: {
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference the CLI expands.
            API_TOKEN: "${E2E_API_TOKEN}",
            // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference the CLI expands.
            OTHER: "${E2E_PRESENT_SECRET}",
          },
        }),
        fine: sandbox.scriptableServer("fine"),
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference the CLI must not expand.
        off: { command: "${E2E_NEVER_SET}", disabled: true },
      },
    });
    writeFileSync(join(sandbox.workspace, "note.txt"), "local tools still work");
    const present = { E2E_PRESENT_SECRET: SECRET };

    const [list, call, other, local] = await Promise.all([
      sandbox.run(["mcp", "list", "--json"], { env: present }),
      sandbox.run(["call", "mcp__docs__echo", "--json"], { env: present }),
      sandbox.run(["call", "mcp__fine__echo", "--input", '{"message":"hi"}'], { env: present }),
      sandbox.run(["call", "read_file", "--input", '{"path":"note.txt"}'], { env: present }),
    ]);

    const { servers } = parseSingleJson(list.stdout) as {
      servers: { name: string; status: string; error?: { message: string } }[];
    };
    const docs = servers.find((server) => server.name === "docs");
    expect(docs?.status).toBe("failed");
    expect(docs?.error?.message).toContain("E2E_API_TOKEN");
    expect(servers.find((server) => server.name === "fine")?.status).toBe("ready");
    expect(list.code).toBe(1);
    expect(call.code).toBe(1);
    expect(call.stderr).toContain("E2E_API_TOKEN");
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).toBe('{"message":"hi"}\n');
    expect(local.code, local.stderr).toBe(0);
    expect(local.stdout).toContain("local tools still work");
    for (const result of [list, call, other, local])
      expect(result.stdout + result.stderr).not.toContain(SECRET);
    // The server was never started.
    expect(sandbox.records("docs")).toEqual([]);
  });

  test("a set variable reaches the server but never the output or the audit trail", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    // A server that puts its token into its error message, as careless servers do.
    const leaky = [
      "-e",
      [
        "const message = 'bad token ' + process.env.TOKEN;",
        "process.stderr.write(message + '\\n');",
        "process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 0, error: { code: -32000, message } }) + '\\n');",
        "setTimeout(() => process.exit(1), 100);",
      ].join(" "),
    ];
    sandbox.writeConfig({
      mcpServers: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference the CLI expands.
        leaky: { command: process.execPath, args: leaky, env: { TOKEN: "${E2E_TOKEN}" } },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a reference the CLI expands.
        fine: sandbox.scriptableServer("fine", { env: { TOKEN: "${E2E_TOKEN}" } }),
      },
    });

    const result = await sandbox.run(["mcp", "list", "--json"], { env: { E2E_TOKEN: SECRET } });

    expect(result.code).toBe(1);
    const { servers } = parseSingleJson(result.stdout) as {
      servers: { name: string; status: string; error: { message: string } | null }[];
    };
    expect(servers.map((server) => [server.name, server.status])).toEqual([
      ["leaky", "failed"],
      ["fine", "ready"],
    ]);
    expect(servers[0]?.error?.message).toContain("bad token [redacted]");
    expect(result.stdout + result.stderr).not.toContain(SECRET);
    expect(readFileSync(join(sandbox.stateDir, "audit.jsonl"), "utf8")).not.toContain(SECRET);
  });
});
