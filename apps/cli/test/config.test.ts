// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in plain strings.
import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandVariables, isToolSelected, loadConfig, resolveConfigPath } from "../src/config/index.js";
import { directory, loadError, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

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
    expect(config.workspaceRoot).toBe(directory());
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
        cwd: directory(),
        disabled: false,
        trust: "untrusted",
        sandbox: { network: "deny", write: [], read: [] },
      },
      {
        name: "local",
        type: "stdio",
        command: join(directory(), "tools", "bin", "server.js"),
        args: [],
        env: { MODE: "test" },
        cwd: join(directory(), "tools"),
        disabled: false,
        trust: "untrusted",
        sandbox: { network: "deny", write: [], read: [] },
      },
    ]);
    // The CLI isolates unless the file says otherwise.
    expect(config.policy.sandbox).toBe("required");
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
    expect(config.workspaceRoot).toBe(join(directory(), "work"));
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
        trust: "untrusted",
      },
      {
        name: "other",
        type: "http",
        url: "http://127.0.0.1:8080/mcp",
        headers: {},
        disabled: true,
        trust: "untrusted",
      },
      {
        name: "inferred",
        type: "http",
        url: "https://inferred.example.com/mcp",
        headers: {},
        disabled: false,
        trust: "untrusted",
      },
    ]);
  });

  it("reads legacy HTTP+SSE servers and idle timeouts", () => {
    const config = loadConfig(
      writeConfig({
        mcpServers: {
          legacy: { type: "sse", url: "https://legacy.example/sse", idleTimeoutMs: 60_000 },
          local: { command: "node", idleTimeoutMs: 1_000, sampling: { maxTokens: 512 } },
        },
      }),
      {},
    );
    expect(config.servers).toEqual([
      expect.objectContaining({
        name: "legacy",
        type: "sse",
        url: "https://legacy.example/sse",
        idleTimeoutMs: 60_000,
      }),
      expect.objectContaining({
        name: "local",
        type: "stdio",
        idleTimeoutMs: 1_000,
        sampling: { maxTokens: 512 },
      }),
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
      cwd: join(directory(), "sub"),
    });
    expect(config.servers[1]).toMatchObject({
      url: "https://h.example/mcp",
      headers: { Authorization: "Bearer t0k3n" },
    });
  });

  it("says where to put a configuration that does not exist", () => {
    const error = loadError(join(directory(), "missing.json"));
    expect(error.code).toBe("config_not_found");
    expect(error.message).toContain("--config FILE");
    expect(error.message).toContain("AGENT_CONFIG");
  });
});

describe("resolveConfigPath", () => {
  it("prefers the flag, then AGENT_CONFIG, then agent.config.json in the cwd", () => {
    const cwd = directory();
    expect(resolveConfigPath({ flag: "a.json", env: { AGENT_CONFIG: "/etc/b.json" }, cwd })).toMatchObject({
      path: join(cwd, "a.json"),
      source: "flag",
    });
    expect(resolveConfigPath({ env: { AGENT_CONFIG: "conf/b.json" }, cwd })).toMatchObject({
      path: join(cwd, "conf", "b.json"),
      source: "env",
    });
    expect(resolveConfigPath({ flag: "", env: { AGENT_CONFIG: "" }, cwd })).toMatchObject({
      path: join(cwd, "agent.config.json"),
      source: "default",
      found: false,
    });
  });

  it("refuses a configuration found above the cwd that others may replace, unless the directory is sticky", () => {
    const shared = join(directory(), "shared");
    const cwd = join(shared, "project");
    mkdirSync(cwd, { recursive: true });
    const planted = join(shared, ".mcp.json");
    writeFileSync(planted, "{}");
    chmodSync(shared, 0o777);
    const search = () => resolveConfigPath({ env: {}, cwd });
    expect(codeOf(search)).toBe("config_untrusted");
    // As /tmp: world-writable but sticky, so no one else can replace a file that is the user's.
    chmodSync(shared, 0o1777);
    expect(search()).toMatchObject({ path: planted, found: true });
  });

  it.skipIf(process.getuid?.() !== 0)(
    "refuses a configuration found above the cwd that another user owns",
    () => {
      const cwd = join(directory(), "project");
      mkdirSync(cwd);
      const planted = join(directory(), "agent.config.json");
      writeFileSync(planted, "{}");
      chownSync(planted, 65534, 65534);
      expect(codeOf(() => resolveConfigPath({ env: {}, cwd }))).toBe("config_untrusted");
      // Named, it is the user's choice.
      expect(resolveConfigPath({ flag: planted, env: {}, cwd })).toMatchObject({
        path: planted,
        found: true,
      });
    },
  );
});

function codeOf(search: () => unknown): unknown {
  try {
    search();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return "no error";
}

describe("expandVariables", () => {
  it("keeps lone dollars and reports only the variable name", () => {
    expect(expandVariables("$HOME and $ and $$", {})).toEqual({
      ok: true,
      value: "$HOME and $ and $$",
      substituted: [],
    });
    expect(expandVariables("${A}${B:-}", { A: "1" })).toEqual({ ok: true, value: "1", substituted: ["1"] });
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
