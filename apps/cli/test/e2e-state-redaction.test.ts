import { writeFileSync } from "node:fs";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, e2eTest as test } from "./e2e-helpers.js";

const SECRET = "sk-test-4f9a2c71e0b8d3";

describe("commands that open only the state", () => {
  test("never show a configured secret a held call was made with", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    sandbox.writeConfig({ mcpServers: { s: sandbox.scriptableServer("s", { env: { API_TOKEN: SECRET } }) } });
    // The model put the secret into a write: the request is held, and stored as the digest needs it.
    const held = await sandbox.run([
      "call",
      "write_file",
      "--input",
      JSON.stringify({ path: "note.txt", content: `token=${SECRET}` }),
      "--json",
    ]);
    expect(held.code, held.stderr).toBe(3);
    const { requestId, runId } = JSON.parse(held.stdout) as { requestId: string; runId: string };
    for (const args of [
      ["approvals", "list"],
      ["approvals", "list", "--json"],
      ["approvals", "show", requestId],
      ["approvals", "show", requestId, "--json"],
      ["runs", "show", runId, "--json"],
      ["audit", "--json"],
    ]) {
      const result = await sandbox.run(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      expect(result.stdout + result.stderr, args.join(" ")).not.toContain(SECRET);
    }
  });

  test("refuse to print stored inputs while the configuration that knows the secrets does not load", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const config = { mcpServers: { s: sandbox.scriptableServer("s", { env: { API_TOKEN: SECRET } }) } };
    sandbox.writeConfig(config);
    const held = await sandbox.run([
      "call",
      "write_file",
      "--input",
      JSON.stringify({ path: "note.txt", content: `token=${SECRET}` }),
      "--json",
    ]);
    expect(held.code, held.stderr).toBe(3);
    const { requestId, runId } = JSON.parse(held.stdout) as { requestId: string; runId: string };
    const commands = [
      ["approvals", "list"],
      ["approvals", "show", requestId],
      ["approvals", "show", requestId, "--json"],
      ["runs", "list", "--json"],
      ["runs", "show", runId, "--json"],
      ["audit", "--json"],
    ];
    // Broken two ways: not JSON at all, and a typo the schema refuses (the secret still in the file).
    for (const broken of [JSON.stringify({ ...config, polcy: {} }), `${JSON.stringify(config)},`]) {
      writeFileSync(sandbox.configPath, broken);
      const results = await Promise.all(commands.map((args) => sandbox.run(args)));
      results.forEach((result, index) => {
        const command = commands[index]?.join(" ") ?? "";
        expect(result.stdout + result.stderr, command).not.toContain(SECRET);
        expect(result.code, `${command}: ${result.stderr}`).toBe(2);
        expect(result.stderr, command).toContain("cannot redact");
      });
    }
  });
});
