import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, resolveConfigPath, userConfigPath } from "../src/config/index.js";
import { directory, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

function writeUserConfig(content: unknown): string {
  const folder = join(directory(), "user");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "config.json");
  writeFileSync(file, JSON.stringify(content));
  return file;
}

describe("the user-level configuration", () => {
  it("lives under $XDG_CONFIG_HOME when it is absolute, else under ~/.config", () => {
    expect(userConfigPath({ XDG_CONFIG_HOME: "/x/conf", HOME: "/home/u" })).toBe("/x/conf/agent/config.json");
    expect(userConfigPath({ XDG_CONFIG_HOME: "relative", HOME: "/home/u" })).toBe(
      "/home/u/.config/agent/config.json",
    );
  });

  it("merges under the project: servers by name, rules concatenated, other settings the project's first", () => {
    const userFile = writeUserConfig({
      mcpServers: { shared: { command: "shared-server" }, both: { command: "user-version" } },
      policy: {
        defaults: { write: "deny", external: "allow" },
        rules: [{ tool: "mcp__shared__*", decision: "deny" }],
        network: "allow",
      },
      toolTimeoutMs: 5_000,
      model: { provider: "openai", name: "from-user" },
    });
    const project = writeConfig({
      mcpServers: { both: { command: "project-version" } },
      policy: {
        defaults: { external: "ask" },
        rules: [{ tool: "mcp__*", decision: "allow" }],
        sandbox: "optional",
      },
      model: { provider: "anthropic", name: "from-project" },
    });
    const config = loadConfig(project, {}, { userFile });
    const commands = Object.fromEntries(
      config.servers.map((server) => [server.name, server.type === "stdio" ? server.command : ""]),
    );
    expect(commands).toEqual({ both: "project-version", shared: "shared-server" });
    expect(config.policy.rules.map((rule) => rule.tool)).toEqual(["mcp__*", "mcp__shared__*"]);
    // The user's allow of external tools does not loosen the project's ask; its write deny holds.
    expect(config.policy.defaults).toMatchObject({ write: "deny", external: "ask" });
    expect(config.policy.network).toBe("allow");
    expect(config.policy.sandbox).toBe("optional");
    expect(config.toolTimeoutMs).toBe(5_000);
    expect(config.model?.name).toBe("from-project");
    expect(config.origins).toMatchObject({
      "mcpServers.both": project,
      "mcpServers.shared": userFile,
      "policy.rules[0]": project,
      "policy.rules[1]": userFile,
      "policy.defaults.write": userFile,
      "policy.defaults.external": project,
      toolTimeoutMs: userFile,
      model: project,
    });
    // The user file is policy too: protected like the project's.
    expect(config.protectedPaths).toContain(userFile);
  });

  it("takes the user file as a floor for the safety settings: a project cannot lower them", () => {
    const userFile = writeUserConfig({
      policy: {
        defaults: { external: "ask", write: "ask" },
        network: "deny",
        sandbox: "required",
        flows: "guard",
      },
    });
    const project = writeConfig({
      mcpServers: {},
      policy: {
        defaults: { external: "allow", write: "deny" },
        network: "allow",
        sandbox: "optional",
        flows: "off",
      },
    });
    const config = loadConfig(project, {}, { userFile });
    expect(config.policy.defaults).toMatchObject({ external: "ask", write: "deny" });
    expect([config.policy.network, config.policy.sandbox, config.policy.flows]).toEqual([
      "deny",
      "required",
      "guard",
    ]);
    expect(config.origins).toMatchObject({
      "policy.defaults.external": userFile,
      "policy.defaults.write": project,
      "policy.network": userFile,
      "policy.sandbox": userFile,
      "policy.flows": userFile,
    });
  });

  it("refuses project settings in the user file, naming that file and the key", () => {
    const userFile = writeUserConfig({ workspaceRoot: "/", state: { url: "postgres://x" } });
    const project = writeConfig({});
    let error: unknown;
    try {
      loadConfig(project, {}, { userFile });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error)).toBe(true);
    const message = (error as ConfigError).message;
    expect(message).toContain(userFile);
    expect(message).toMatch(/workspaceRoot: is a project setting/);
    expect(message).toMatch(/state: is a project setting/);
  });

  it("is absent when its file does not exist", () => {
    const project = writeConfig({});
    const config = loadConfig(project, {}, { userFile: join(directory(), "nowhere.json") });
    expect(config.userFile).toBeUndefined();
    expect(config.origins).toEqual({});
  });
});

describe("the project configuration is searched upward", () => {
  it("stops at the repository root and reports the directories it searched", () => {
    const repository = join(directory(), "repo");
    const deep = join(repository, "a", "b");
    mkdirSync(deep, { recursive: true });
    mkdirSync(join(repository, ".git"));
    writeConfig({}); // above the repository root: never found from inside it
    const location = resolveConfigPath({ cwd: deep, env: { HOME: "/nonexistent-home" } });
    expect(location).toMatchObject({
      found: false,
      source: "default",
      path: join(deep, "agent.config.json"),
    });
    expect(location.searched).toEqual([deep, join(repository, "a"), repository]);
    writeFileSync(join(repository, ".mcp.json"), "{}");
    expect(resolveConfigPath({ cwd: deep, env: {} })).toMatchObject({
      found: true,
      source: "project-mcp",
      path: join(repository, ".mcp.json"),
    });
  });
});
