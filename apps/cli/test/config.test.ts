// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in plain strings.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_SERVER_NAME_LENGTH } from "@agent/mcp-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ConfigError,
  expandVariables,
  isToolSelected,
  loadConfig,
  parseJsonText,
  resolveConfigPath,
} from "../src/config/index.js";

let directory: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "agent-config-"));
});

afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

function writeConfig(content: unknown, name = "agent.config.json"): string {
  const file = join(directory, name);
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
}

function loadError(file: string, env: Record<string, string> = {}): ConfigError {
  try {
    loadConfig(file, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected loadConfig to throw a ConfigError");
}

describe("loadConfig", () => {
  it("reads a .mcp.json-style file and resolves paths against its directory", () => {
    const file = writeConfig(
      {
        mcpServers: {
          filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
          local: { type: "stdio", command: "./bin/server.js", cwd: "tools", env: { MODE: "test" } },
        },
      },
      ".mcp.json",
    );
    const config = loadConfig(file, {});
    expect(config.file).toBe(file);
    expect(config.workspaceRoot).toBe(directory);
    expect(config.toolTimeoutMs).toBe(60_000);
    expect(config.policy.defaults).toEqual({ read: "allow", write: "ask", external: "ask" });
    expect(config.warnings).toEqual([]);
    expect(config.servers).toEqual([
      {
        name: "filesystem",
        type: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "."],
        env: {},
        cwd: directory,
        disabled: false,
      },
      {
        name: "local",
        type: "stdio",
        command: join(directory, "tools", "bin", "server.js"),
        args: [],
        env: { MODE: "test" },
        cwd: join(directory, "tools"),
        disabled: false,
      },
    ]);
  });

  it("reads HTTP servers, the streamable-http alias, our own keys and the policy", () => {
    const file = writeConfig({
      workspaceRoot: "work",
      toolTimeoutMs: 5000,
      policy: {
        defaults: { read: "ask" },
        rules: [{ tool: "mcp__docs__*", decision: "allow" }],
        network: "allow",
      },
      mcpServers: {
        docs: {
          type: "http",
          url: "https://docs.example.com/mcp",
          headers: { "X-Team": "core" },
          timeoutMs: 2000,
          includeTools: ["search*"],
          excludeTools: ["search_private"],
        },
        other: { type: "streamable-http", url: "http://127.0.0.1:8080/mcp", disabled: true },
        inferred: { url: "https://inferred.example.com/mcp" },
      },
    });
    const config = loadConfig(file, {});
    expect(config.workspaceRoot).toBe(join(directory, "work"));
    expect(config.toolTimeoutMs).toBe(5000);
    expect(config.policy.defaults.read).toBe("ask");
    expect(config.policy.network).toBe("allow");
    expect(config.servers).toEqual([
      {
        name: "docs",
        type: "http",
        url: "https://docs.example.com/mcp",
        headers: { "X-Team": "core" },
        timeoutMs: 2000,
        includeTools: ["search*"],
        excludeTools: ["search_private"],
        disabled: false,
      },
      { name: "other", type: "http", url: "http://127.0.0.1:8080/mcp", headers: {}, disabled: true },
      {
        name: "inferred",
        type: "http",
        url: "https://inferred.example.com/mcp",
        headers: {},
        disabled: false,
      },
    ]);
  });

  it("expands ${VAR} and ${VAR:-default} in every string of a server entry", () => {
    const file = writeConfig({
      mcpServers: {
        api: {
          command: "${TOOL_BIN}",
          args: ["--port", "${PORT:-8080}", "--literal", "$${NOT_EXPANDED}", "cost: $5"],
          env: { TOKEN: "${API_TOKEN}", EMPTY_DEFAULT: "${EMPTY:-fallback}" },
          cwd: "${WORK_DIR:-sub}",
        },
        remote: {
          type: "http",
          url: "https://${HOST}/mcp",
          headers: { Authorization: "Bearer ${API_TOKEN}" },
        },
      },
    });
    const config = loadConfig(file, {
      TOOL_BIN: "/usr/bin/tool",
      API_TOKEN: "t0k3n",
      EMPTY: "",
      HOST: "h.example",
    });
    expect(config.servers[0]).toMatchObject({
      command: "/usr/bin/tool",
      args: ["--port", "8080", "--literal", "${NOT_EXPANDED}", "cost: $5"],
      env: { TOKEN: "t0k3n", EMPTY_DEFAULT: "fallback" },
      cwd: join(directory, "sub"),
    });
    expect(config.servers[1]).toMatchObject({
      url: "https://h.example/mcp",
      headers: { Authorization: "Bearer t0k3n" },
    });
  });

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
    const error = loadError(file, { DOCS_TOKEN: secret, UNRELATED_SECRET: secret });
    expect(error.code).toBe("config_missing_variable");
    expect(error.message).toContain("DOCS_ORG");
    expect(error.message).toContain('server "docs"');
    expect(error.message).toContain("mcpServers.docs.headers.X-Org");
    expect(error.message).not.toContain(secret);
    expect(error.message).not.toContain("Bearer");
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
      "  - mcpServers.a.env[\"A=B\"]: an environment variable name may not contain '='",
      '  - mcpServers.b.headers["Bad Header"]: is not a valid HTTP header name',
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
      expect.stringMatching(/^ {2}- mcpServers\["my docs"\]: .*\[a-zA-Z0-9_-\]/),
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
          sse: { type: "sse", url: "https://x.example/sse" },
          ftp: { type: "http", url: "ftp://x.example" },
        },
      }),
    );
    expect(error.message).toContain('mcpServers.neither: needs "command"');
    expect(error.message).toContain('mcpServers.both: has both "command" and "url"');
    expect(error.message).toContain('mcpServers.sse.type: the HTTP+SSE transport ("sse") is not supported');
    expect(error.message).toContain("mcpServers.ftp.url: must be an absolute http: or https: URL");
  });

  it("reports JSON syntax errors with line and column, without quoting the file", () => {
    const file = writeConfig(
      '{\n  "mcpServers": {\n    "docs": { "command": "run", "env": { "TOKEN": "hunter2" }, }\n  }\n}\n',
    );
    const error = loadError(file);
    expect(error.code).toBe("config_invalid_json");
    expect(error.message).toBe(
      `${file}:3:64: unexpected '}'; expected a property name in double quotes (JSON allows no comma after the last property).`,
    );
    expect(error.message).not.toContain("hunter2");

    const truncated = loadError(writeConfig('{ "mcpServers": {'));
    expect(truncated.message).toContain(":1:18: unexpected end of the file");
  });

  it("accepts exactly the JSON that JSON.parse accepts", () => {
    const valid = [
      '{"a":"\\u00e9\\n\\"\\\\\\/","b":[1,-0.5,2E+3,0,true,false,null,{}],"c":[]}',
      '\ufeff{"mcpServers":{}}',
      ' \r\n\t{ "policy" : { "network" : "allow" } } \n',
    ];
    for (const text of valid)
      expect(parseJsonText(text, "f.json")).toEqual(JSON.parse(text.replace(/^\ufeff/, "")));
    const invalid = [
      "",
      "{",
      '{"a":01}',
      '{"a":1.}',
      '{"a":"\\x"}',
      "{'a':1}",
      '{"a":1} x',
      "[1,]",
      '{"a":"\t"}',
    ];
    for (const text of invalid) {
      expect(() => JSON.parse(text)).toThrow();
      expect(loadError(writeConfig(text)).code).toBe("config_invalid_json");
    }
  });

  it("refuses a key repeated in one object", () => {
    const error = loadError(writeConfig('{\n  "policy": { "network": "deny" },\n  "policy": {}\n}'));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(':3:3: duplicate key "policy"');
  });

  it("says where to put a configuration that does not exist", () => {
    const error = loadError(join(directory, "missing.json"));
    expect(error.code).toBe("config_not_found");
    expect(error.message).toContain("--config FILE");
    expect(error.message).toContain("AGENT_CONFIG");
  });
});

describe("resolveConfigPath", () => {
  it("prefers the flag, then AGENT_CONFIG, then agent.config.json in the cwd", () => {
    const cwd = directory;
    expect(resolveConfigPath({ flag: "a.json", env: { AGENT_CONFIG: "/etc/b.json" }, cwd })).toEqual({
      path: join(cwd, "a.json"),
      source: "flag",
    });
    expect(resolveConfigPath({ env: { AGENT_CONFIG: "conf/b.json" }, cwd })).toEqual({
      path: join(cwd, "conf", "b.json"),
      source: "env",
    });
    expect(resolveConfigPath({ flag: "", env: { AGENT_CONFIG: "" }, cwd })).toEqual({
      path: join(cwd, "agent.config.json"),
      source: "default",
    });
  });
});

describe("expandVariables", () => {
  it("keeps lone dollars and reports only the variable name", () => {
    expect(expandVariables("$HOME and $ and $$", {})).toEqual({ ok: true, value: "$HOME and $ and $$" });
    expect(expandVariables("${A}${B:-}", { A: "1" })).toEqual({ ok: true, value: "1" });
    expect(expandVariables("x${MISSING}", { OTHER: "secret" })).toEqual({
      ok: false,
      problem: "missing_variable",
      variable: "MISSING",
    });
    expect(expandVariables("${unterminated", {})).toEqual({ ok: false, problem: "malformed_reference" });
  });
});

describe("isToolSelected", () => {
  it("applies includeTools, then excludeTools, which wins", () => {
    expect(isToolSelected({}, "anything")).toBe(true);
    const server = { includeTools: ["search*", "fetch"], excludeTools: ["search_private"] };
    expect(isToolSelected(server, "search_docs")).toBe(true);
    expect(isToolSelected(server, "fetch")).toBe(true);
    expect(isToolSelected(server, "search_private")).toBe(false);
    expect(isToolSelected(server, "delete")).toBe(false);
  });
});
