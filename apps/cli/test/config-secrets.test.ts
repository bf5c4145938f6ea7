// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these tests are about ${VAR} references in plain strings.
import { describe, expect, it } from "vitest";
import { collectConfigSecrets, loadConfig } from "../src/config/index.js";
import { useConfigDirectory, writeConfig } from "./config-helpers.js";

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
            env: { PIN: "48213", MODE: "test", SHORT_TOKEN: "12" },
          },
          remote: {
            url: "https://api.example.com/mcp/tok9Zx81Lm2PqRst4?key=qv-1&plain=visible",
            headers: { Authorization: "Bearer hdr-7Q2x", "X-Team": "core" },
          },
        },
      }),
      { FROM_ENV: "from-env-value" },
    );
    const { values, warnings } = collectConfigSecrets(config);
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
    // Too short to redact: said, for the names that look like secrets.
    expect(values).not.toContain("12");
    expect(warnings).toEqual([
      "mcpServers.local.env.SHORT_TOKEN is shorter than 4 characters, too short to be redacted from output; use a longer secret.",
    ]);
  });

  it("leaves out JSON's own words, which would corrupt --json output", () => {
    const config = loadConfig(
      writeConfig({ mcpServers: { s: { command: "x", env: { A: "true", B: "null" } } } }),
      {},
    );
    expect(collectConfigSecrets(config).values).toEqual([]);
  });
});
