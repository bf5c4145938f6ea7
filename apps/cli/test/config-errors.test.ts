// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in plain strings.
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { MAX_SERVER_NAME_LENGTH } from "@agent/mcp-client";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/index.js";
import { loadError, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

describe("configuration errors", () => {
  it("names the missing variable, the server and the field, and never a value", () => {
    const secret = "sk-live-DO-NOT-PRINT-4242";
    const file = writeConfig({
      mcpServers: {
        docs: {
          type: "http",
          url: "https://docs.example.com/mcp",
          headers: { Authorization: "Bearer ${DOCS_TOKEN}", "X-Org": "${DOCS_ORG}" },
        },
      },
    });
    // Only variables missing: the file loads, and that one server is marked (it fails alone when started).
    const config = loadConfig(file, { DOCS_TOKEN: secret, UNRELATED_SECRET: secret });
    expect(config.servers.map((server) => [server.name, server.missingVariables])).toEqual([
      ["docs", ["DOCS_ORG"]],
    ]);
    // With another problem in the file, the missing variable is reported with it.
    const both = writeConfig({
      toolTimeoutMs: -1,
      mcpServers: {
        docs: { type: "http", url: "https://docs.example.com/mcp", headers: { "X-Org": "${DOCS_ORG}" } },
      },
    });
    const error = loadError(both, { UNRELATED_SECRET: secret });
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("DOCS_ORG");
    expect(error.message).toContain('server "docs"');
    expect(error.message).toContain("mcpServers.docs.headers.X-Org");
    expect(error.message).not.toContain(secret);
  });

  it("does not expand the references of a disabled server", () => {
    const file = writeConfig({
      mcpServers: { off: { command: "run", args: ["${UNSET_ANYWHERE}"], disabled: true } },
    });
    const [server] = loadConfig(file, {}).servers;
    expect(server).toMatchObject({ name: "off", disabled: true, args: ["${UNSET_ANYWHERE}"] });
    expect(server?.missingVariables).toBeUndefined();
  });

  it("reports a malformed reference without quoting it", () => {
    const file = writeConfig({ mcpServers: { docs: { command: "run", args: ["${secret-ish value"] } } });
    const error = loadError(file);
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("mcpServers.docs.args[0]");
    expect(error.message).not.toContain("secret-ish");
  });

  it("names the path of a bad field and what was expected", () => {
    const file = writeConfig({
      mcpServers: { docs: { command: "run", timeoutMs: "10s" } },
      toolTimeoutMs: -1,
    });
    const error = loadError(file);
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/toolTimeoutMs: .*>=1/);

    const second = loadError(writeConfig({ mcpServers: { docs: { command: "run", timeoutMs: "10s" } } }));
    expect(second.message).toContain("mcpServers.docs.timeoutMs: expected number, received string");
    expect(second.message).not.toContain("10s");

    const third = loadError(writeConfig({ policy: { rules: [{ tool: "x", decision: "maybe" }] } }));
    expect(third.message).toContain("policy.rules[0].decision");
    expect(third.message).toContain('"allow"|"ask"|"deny"');
  });

  it("reports every problem of the file at once, without any value", () => {
    const file = writeConfig({
      workspaceRoot: 3,
      mcpServers: {
        a: { command: "x", env: { "A=B": "secret-value-1" }, args: "not-an-array" },
        b: { url: "https://x.example", headers: { "Bad Header": "secret-value-2" } },
        c: { command: "x", env: { TOKEN: "${UNSET_TOKEN}" } },
      },
    });
    const error = loadError(file);
    // A missing variable among other problems is not all it takes to fix the file.
    expect(error.code).toBe("config_invalid");
    expect(error.message.split("\n").slice(1)).toEqual([
      "  - workspaceRoot: expected string, received number",
      "  - mcpServers.a.args: expected array, received string",
      // A key that is not a plain name may be a misplaced secret ("TOKEN=…"): it is never quoted.
      "  - mcpServers.a.env[<key not shown>]: an environment variable name may not contain '='",
      "  - mcpServers.b.headers[<key not shown>]: is not a valid HTTP header name",
      '  - mcpServers.c.env.TOKEN: environment variable UNSET_TOKEN is not set (needed by server "c"); set it, or give a default with ${UNSET_TOKEN:-default}',
    ]);
    expect(error.message).not.toMatch(/secret-value|not-an-array/);
  });

  it("rejects unknown keys and lists the allowed ones", () => {
    const top = loadError(writeConfig({ polcy: {}, mcpServers: {} }));
    expect(top.code).toBe("config_invalid");
    expect(top.message).toContain('unknown key "polcy"');
    expect(top.message).toContain(
      "allowed keys here: $schema, mcpServers, policy, workspaceRoot, toolTimeoutMs",
    );

    const nested = loadError(writeConfig({ policy: { defaults: { exernal: "allow" } } }));
    expect(nested.message).toContain(
      'policy.defaults: unknown key "exernal"; allowed keys here: read, write, external',
    );

    const server = loadError(writeConfig({ mcpServers: { docs: { command: "run", excludeTool: ["x"] } } }));
    expect(server.message).toContain('mcpServers.docs: unknown key "excludeTool"');
    expect(server.message).toContain("excludeTools");
  });

  it("ignores other clients' known server keys with a warning", () => {
    const file = writeConfig({
      mcpServers: { docs: { command: "run", autoApprove: ["search"], timeout: 30 } },
    });
    const config = loadConfig(file, {});
    expect(config.servers).toHaveLength(1);
    expect(config.warnings).toEqual([
      "mcpServers.docs.autoApprove is another client's setting and is ignored here.",
      "mcpServers.docs.timeout is another client's setting and is ignored here.",
    ]);
  });

  it("never quotes a key that may be a misplaced secret: unknown, invalid or duplicate", () => {
    const secrets = [
      "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
      "sk_live_9f8e7d6c5b4a3",
      "TOKEN=s3cr3t",
      "Bearer x9y8",
    ];
    const file = writeConfig({
      [secrets[0] as string]: 1,
      mcpServers: {
        x: { command: "node", env: { [secrets[2] as string]: "v" }, [secrets[1] as string]: true },
        y: { url: "http://127.0.0.1/mcp", headers: { [secrets[3] as string]: "v" } },
      },
    });
    const error = loadError(file);
    for (const secret of secrets) expect(error.message).not.toContain(secret);
    expect(error.message).toContain("(the top level): unknown key <key not shown>; allowed keys here:");
    expect(error.message).toContain("mcpServers.x: unknown key <key not shown>; allowed keys here:");
    expect(error.message).toContain("mcpServers.x.env[<key not shown>]: an environment variable name");
    expect(error.message).toContain("mcpServers.y.headers[<key not shown>]: is not a valid HTTP header name");

    const duplicate = join(dirname(file), "duplicate.json");
    writeFileSync(duplicate, `{"mcpServers":{},"${secrets[1]}":1,"${secrets[1]}":2}`);
    const twice = loadError(duplicate);
    expect(twice.message).toContain("duplicate key <key not shown>");
    expect(twice.message).not.toContain(secrets[1]);
    // Plain setting names are still quoted, so a typo is easy to spot.
    expect(loadError(writeConfig({ toolTimeotMs: 1 })).message).toContain('unknown key "toolTimeotMs"');
  });

  it("rejects server names that cannot form mcp__<server>__<tool>", () => {
    const names = ["a__b", "_docs", "docs_", "my docs", "x".repeat(MAX_SERVER_NAME_LENGTH + 1)];
    const file = writeConfig({
      mcpServers: Object.fromEntries(names.map((name) => [name, { command: "run" }])),
    });
    const error = loadError(file);
    expect(error.code).toBe("config_invalid");
    const lines = error.message.split("\n").slice(1);
    expect(lines).toEqual([
      expect.stringMatching(/^ {2}- mcpServers\.a__b: .*"__"/),
      expect.stringMatching(/^ {2}- mcpServers\._docs: .*start or end with "_"/),
      expect.stringMatching(/^ {2}- mcpServers\.docs_: .*start or end with "_"/),
      expect.stringMatching(/^ {2}- mcpServers\[<key not shown>\]: .*\[a-zA-Z0-9_-\]/),
      expect.stringMatching(
        new RegExp(
          `^ {2}- mcpServers\\.x{${MAX_SERVER_NAME_LENGTH + 1}}: .*at most ${MAX_SERVER_NAME_LENGTH} characters`,
        ),
      ),
    ]);
    // The longest allowed name still leaves room in the 64-character limit for a tool name.
    expect(
      loadConfig(
        writeConfig({ mcpServers: { ["y".repeat(MAX_SERVER_NAME_LENGTH)]: { command: "run" } } }),
        {},
      ).servers,
    ).toHaveLength(1);
  });

  it("rejects entries whose transport is unclear or unsupported", () => {
    const error = loadError(
      writeConfig({
        mcpServers: {
          neither: { args: [] },
          both: { command: "run", url: "https://x.example" },
          sse: { type: "sse", url: "ftp://x.example/sse" },
          gopher: { type: "gopher", url: "https://x.example" },
          ftp: { type: "http", url: "ftp://x.example" },
        },
      }),
    );
    expect(error.message).toContain('mcpServers.neither: needs "command"');
    expect(error.message).toContain('mcpServers.both: has both "command" and "url"');
    expect(error.message).toContain("mcpServers.sse.url: must be an absolute http: or https: URL");
    expect(error.message).toContain(
      'mcpServers.gopher.type: expected "stdio", "http", "streamable-http" or "sse"',
    );
    expect(error.message).toContain("mcpServers.ftp.url: must be an absolute http: or https: URL");
  });
});
