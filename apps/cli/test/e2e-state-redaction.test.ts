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
});
