// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references must reach the file as written.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

const LITERAL_SECRET = "sk-literal-4f9a8b7c6d5e4f3a2b1c";
const TOKEN_ENV = { ADDED_TOKEN: "token-value-from-env" };

describe("agent mcp add / get / remove", () => {
  test("edits the configuration in place, keeping its formatting and ${VAR} references", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const scriptable = sandbox.scriptableServer("added") as {
      command: string;
      args: string[];
      env: Record<string, string>;
    };
    // Four-space indentation, a key order and a one-line object of the user's own.
    const original =
      '{\n    "policy": { "sandbox": "optional" },\n    "workspaceRoot": "workspace",\n    "mcpServers": {}\n}\n';
    writeFileSync(sandbox.configPath, original);

    const add = await sandbox.run([
      "mcp",
      "add",
      "added",
      "-e",
      `MCP_TESTING_RECORD_FILE=${scriptable.env.MCP_TESTING_RECORD_FILE}`,
      "--env",
      "TOKEN=${ADDED_TOKEN}",
      "--env",
      `API_KEY=${LITERAL_SECRET}`,
      "--",
      scriptable.command,
      ...scriptable.args,
    ]);
    expect(add.code, add.stderr).toBe(0);
    const afterAdd = readFileSync(sandbox.configPath, "utf8");
    const remote = await sandbox.run([
      "mcp",
      "add",
      "--transport",
      "http",
      "web",
      "https://mcp.example.com/mcp",
      "-H",
      "Authorization: Bearer ${WEB_TOKEN}",
    ]);
    expect(remote.code, remote.stderr).toBe(0);

    const text = readFileSync(sandbox.configPath, "utf8");
    // Edited in place: the lines before the servers are the user's, byte for byte.
    expect(
      text.startsWith(
        '{\n    "policy": { "sandbox": "optional" },\n    "workspaceRoot": "workspace",\n    "mcpServers": {\n        "added": {\n',
      ),
    ).toBe(true);
    expect(text.endsWith("}\n")).toBe(true);
    const written = JSON.parse(text) as { mcpServers: Record<string, Record<string, unknown>> };
    expect(Object.keys(written)).toEqual(["policy", "workspaceRoot", "mcpServers"]);
    expect(written.mcpServers.added).toEqual({
      command: scriptable.command,
      args: scriptable.args,
      env: {
        MCP_TESTING_RECORD_FILE: scriptable.env.MCP_TESTING_RECORD_FILE,
        TOKEN: "${ADDED_TOKEN}",
        API_KEY: LITERAL_SECRET,
      },
    });
    expect(written.mcpServers.web).toEqual({
      type: "http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: "Bearer ${WEB_TOKEN}" },
    });

    // The added server works; get prints the entry as written, literal secrets redacted. Unisolated:
    // `mcp add` writes no sandbox grant, and the test server must write its record file.
    const [list, get, duplicate] = await Promise.all([
      sandbox.run(["mcp", "list", "--json"], { env: TOKEN_ENV, isolated: false }),
      sandbox.run(["mcp", "get", "added"], { env: TOKEN_ENV }),
      sandbox.run(["mcp", "add", "web", "--", "node"]),
    ]);
    const { servers } = parseSingleJson(list.stdout) as { servers: { name: string; status: string }[] };
    expect(servers.find((server) => server.name === "added")?.status).toBe("ready");
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toContain('"TOKEN": "${ADDED_TOKEN}"');
    expect(get.stdout).not.toContain(LITERAL_SECRET);
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toContain('already has a server named "web"');
    expect(readFileSync(sandbox.configPath, "utf8")).toBe(text);

    const [removed, missing] = [
      await sandbox.run(["mcp", "remove", "web"]),
      await sandbox.run(["mcp", "remove", "web"]),
    ];
    expect(removed.code, removed.stderr).toBe(0);
    expect(missing.code).toBe(2);
    const after = JSON.parse(readFileSync(sandbox.configPath, "utf8")) as {
      mcpServers: Record<string, unknown>;
    };
    expect(Object.keys(after.mcpServers)).toEqual(["added"]);
    // Removing "web" gives back the file as it was before "web" was added, byte for byte.
    expect(readFileSync(sandbox.configPath, "utf8")).toBe(afterAdd);
  });
});
