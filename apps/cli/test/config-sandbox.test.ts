// biome-ignore-all lint/suspicious/noTemplateCurlyInString: a sandbox path may use ${VAR}.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, type StdioServerConfig } from "../src/config/index.js";
import { directory, loadError, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

function stdio(file: string, env: Record<string, string> = {}): StdioServerConfig {
  const [server] = loadConfig(file, env).servers;
  if (server?.type !== "stdio") throw new Error("expected one stdio server");
  return server;
}

describe("a stdio server's sandbox", () => {
  it("defaults to no network and no writes", () => {
    const server = stdio(writeConfig({ mcpServers: { s: { command: "run" } } }));
    expect(server.sandbox).toEqual({ network: "deny", write: [], read: [] });
  });

  it("resolves relative paths against the workspace root, expanding variables", () => {
    const file = writeConfig({
      workspaceRoot: "work",
      mcpServers: {
        s: { command: "run", sandbox: { write: [".", "${OUT:-out}"], read: ["/opt/data", "../shared"] } },
      },
    });
    expect(stdio(file, { OUT: "build" }).sandbox).toEqual({
      network: "deny",
      write: [join(directory(), "work"), join(directory(), "work", "build")],
      read: ["/opt/data", join(directory(), "shared")],
    });
  });

  it("turns a host list into an allow-list, and an empty one into no network", () => {
    const hosts = writeConfig({
      mcpServers: { s: { command: "run", sandbox: { network: ["API.github.com", "example.org"] } } },
    });
    expect(stdio(hosts).sandbox.network).toEqual({ allowHosts: ["api.github.com", "example.org"] });
    const empty = writeConfig({ mcpServers: { s: { command: "run", sandbox: { network: [] } } } });
    expect(stdio(empty).sandbox.network).toBe("deny");
    const none = writeConfig({ mcpServers: { s: { command: "run", sandbox: { network: "none" } } } });
    expect(stdio(none).sandbox.network).toBe("deny");
  });

  it.each([
    "localhost",
    "LOCALHOST.",
    "api.localhost",
    "127.0.0.1",
    "127.1",
    "2130706433",
    "0x7f.0.0.1",
    "0.0.0.0",
    "::1",
    "[::1]",
    "ip6-localhost",
  ])("refuses the loopback name %j without a port, saying how to admit one port", (host) => {
    const error = loadError(
      writeConfig({ mcpServers: { s: { command: "run", sandbox: { network: [host] } } } }),
    );
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain("mcpServers.s.sandbox.network[0]");
    expect(error.message).toContain(":PORT");
  });

  it("admits loopback as host:port, and keeps the port of any entry", () => {
    const file = writeConfig({
      mcpServers: {
        s: { command: "run", sandbox: { network: ["localhost:8080", "[::1]:9000", "Example.org:443"] } },
      },
    });
    expect(stdio(file).sandbox.network).toEqual({
      allowHosts: ["[::1]:9000", "example.org:443", "localhost:8080"],
    });
  });

  it.each([
    [{ network: "all" }, "mcpServers.s.sandbox.network"],
    [{ network: ["https://example.org"] }, "mcpServers.s.sandbox.network[0]"],
    [{ writes: ["."] }, "mcpServers.s.sandbox"],
    [{ write: [""] }, "mcpServers.s.sandbox.write[0]"],
  ])("refuses %j, naming the field", (sandbox, path) => {
    const error = loadError(writeConfig({ mcpServers: { s: { command: "run", sandbox } } }));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(path);
  });

  it("is refused on an HTTP server, which is remote", () => {
    const file = writeConfig({
      mcpServers: { docs: { url: "https://docs.example.com/mcp", sandbox: { network: "none" } } },
    });
    const error = loadError(file);
    expect(error.message).toContain("mcpServers.docs.sandbox");
    expect(error.message).toContain("remote");
  });

  it("comes with policy.sandbox required unless the file says optional", () => {
    expect(loadConfig(writeConfig({})).policy.sandbox).toBe("required");
    expect(loadConfig(writeConfig({ policy: { sandbox: "optional" } })).policy.sandbox).toBe("optional");
  });
});

describe("what the configuration keeps read-only", () => {
  it("launchFiles resolve against the server's cwd, expanding variables; unset leaves the inference", () => {
    const file = writeConfig({
      mcpServers: {
        s: { command: "run", cwd: "srv", launchFiles: ["server.mjs", "${LIB}/lib.mjs"] },
        t: { command: "run" },
      },
    });
    const [listed, inferred] = loadConfig(file, { LIB: "/opt/lib" }).servers;
    expect(listed).toMatchObject({
      launchFiles: [join(directory(), "srv", "server.mjs"), "/opt/lib/lib.mjs"],
    });
    expect(inferred).not.toHaveProperty("launchFiles");
  });

  it("hostRunPaths default to git's config and hooks, .envrc and editor settings, below the workspace root", () => {
    const config = loadConfig(writeConfig({ workspaceRoot: "work" }));
    const root = join(directory(), "work");
    expect(config.hostRunPaths).toContain(join(root, ".git", "config"));
    expect(config.hostRunPaths).toContain(join(root, ".git", "hooks"));
    expect(config.hostRunPaths).toContain(join(root, ".envrc"));
    expect(config.hostRunPaths).toContain(join(root, ".vscode"));
  });

  it("hostRunPaths, when set, replace the default; an empty entry is an error", () => {
    expect(loadConfig(writeConfig({ hostRunPaths: ["Makefile"] })).hostRunPaths).toEqual([
      join(directory(), "Makefile"),
    ]);
    expect(loadError(writeConfig({ hostRunPaths: [""] })).message).toContain("hostRunPaths");
  });
});
