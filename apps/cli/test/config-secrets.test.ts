// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in plain strings.
import { describe, expect, it } from "vitest";
import { collectConfigSecrets, loadConfig } from "../src/config/index.js";
import { loadError, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

describe("configured secrets", () => {
  it("are env and header values, ${VAR} values, token-like args and URL parts, and flagged arguments", () => {
    const config = loadConfig(
      writeConfig({
        mcpServers: {
          local: {
            command: "node",
            args: [
              "@modelcontextprotocol/server-filesystem",
              "/srv/projects/site",
              "--api-key",
              "flagged-1",
              "--token=flagged-2",
              "--key",
              "flagged-3",
              "--url=https://h.example/v1/AbCdEf0123456789xyz",
              "${FROM_ENV}",
            ],
            env: { PIN: "48213", MODE: "test", DEBUG: "1" },
          },
          remote: {
            url: "https://api.example.com/mcp/tok9Zx81Lm2PqRst4?key=qv-1&plain=visible",
            headers: { Authorization: "Bearer hdr-7Q2x", "X-Team": "core" },
          },
        },
      }),
      { FROM_ENV: "from-env-value" },
    );
    const { values, tooShort } = collectConfigSecrets(config);
    for (const secret of [
      "48213",
      "test",
      "flagged-1",
      "flagged-2",
      "flagged-3",
      "AbCdEf0123456789xyz",
      "from-env-value",
      "tok9Zx81Lm2PqRst4",
      "qv-1",
      "visible",
      "Bearer hdr-7Q2x",
      "hdr-7Q2x",
      "core",
    ]) {
      expect(values).toContain(secret);
    }
    // Package names, paths and the words of a URL are not credentials.
    for (const plain of [
      "@modelcontextprotocol/server-filesystem",
      "/srv/projects/site",
      "mcp",
      "api.example.com",
    ]) {
      expect(values).not.toContain(plain);
    }
    // Too short to redact and not named as a credential: a setting.
    expect(values).not.toContain("1");
    expect(tooShort).toEqual([]);
  });

  it("a credential too short to redact fails the configuration, naming each field and no value", () => {
    const error = loadError(
      writeConfig({
        mcpServers: {
          local: {
            command: "node",
            args: ["server.js", "--token", "t0"],
            env: { SHORT_TOKEN: "12", PIN: "7", DEBUG: "1" },
          },
          remote: {
            url: "https://user:pw@api.example.com/mcp?api_key=k9&page=2",
            headers: { Authorization: "Bearer ab", "X-Api-Key": "q", "X-Team": "ab" },
          },
          corp: {
            url: "https://mcp.corp.example/mcp",
            oauth: { clientId: "agent-cli", clientSecret: "${SHORT_SECRET}" },
          },
        },
      }),
      { SHORT_SECRET: "zz" },
    );
    expect(error.code).toBe("config_invalid");
    for (const field of [
      "mcpServers.local.args[2]",
      "mcpServers.local.env.SHORT_TOKEN",
      "mcpServers.local.env.PIN",
      "mcpServers.remote.url",
      "mcpServers.remote.headers.Authorization",
      "mcpServers.remote.headers.X-Api-Key",
      "mcpServers.corp.oauth.clientSecret",
    ]) {
      expect(error.message).toContain(`${field}: is a credential shorter than 4 characters`);
    }
    // Settings that short are no credentials; and no value is ever named.
    expect(error.message).not.toMatch(/DEBUG|X-Team/);
    for (const value of ["t0", "12", "pw", "k9", "ab", "zz"])
      expect(error.message).not.toContain(` ${value}`);
  });

  it("a state database password too short to redact fails the configuration too", () => {
    const error = loadError(writeConfig({ state: { url: "${STATE_URL}" } }), {
      STATE_URL: "postgres://agent:p%40w@127.0.0.1:5432/agent",
    });
    expect(error.message).toContain("state.url: holds a password shorter than 4 characters");
    expect(error.message).not.toMatch(/p%40w|p@w/);
  });

  it("leaves out JSON's own words, which would corrupt --json output", () => {
    const config = loadConfig(
      writeConfig({ mcpServers: { s: { command: "x", env: { A: "true", B: "null" } } } }),
      {},
    );
    expect(collectConfigSecrets(config).values).toEqual([]);
  });
});
