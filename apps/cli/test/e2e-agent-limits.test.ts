import { existsSync, statSync } from "node:fs";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import { stateDatabasePath } from "../src/state/index.js";
import { agentEnv, mcpCall, setUpAgent } from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, type E2eSandbox, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

const provider = "openai";

/** The bytes of the state database with its write-ahead log: what a run's record costs on disk. */
function stateBytes(sandbox: E2eSandbox): number {
  const file = stateDatabasePath(sandbox.stateDir);
  return [file, `${file}-wal`].filter(existsSync).reduce((sum, path) => sum + statSync(path).size, 0);
}

describe("the limits of one model turn, through the CLI", () => {
  test("a turn of 200 held calls and one of 5 MB: 31 requests, nothing run, the state stays small", {
    timeout: E2E_TIMEOUT_MS * 2,
  }, async ({ sandbox }) => {
    const huge = "z".repeat(5_000_000);
    const calls = [
      mcpCall("tc_huge", "echo", { message: huge }),
      ...Array.from({ length: 200 }, (_, index) => mcpCall(`tc_${index}`, "echo", { message: `n${index}` })),
    ];
    const server = await setUpAgent(sandbox, provider, [toolCallTurn(calls), textTurn("done")], {
      mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
    });
    try {
      const held = await sandbox.run(["run", "echo a lot", "--json"], { env: agentEnv(provider) });
      expect(held.code, held.stderr).toBe(3);
      expect(parseSingleJson(held.stdout)).toMatchObject({ status: "waiting" });
      // The default limit is 32 calls a turn: the huge one (refused for its size) and 31 held.
      const listed = JSON.parse((await sandbox.run(["approvals", "list", "--json"])).stdout) as {
        approvals: unknown[];
      };
      expect(listed.approvals).toHaveLength(31);
      expect(sandbox.received("s", "tools/call")).toEqual([]);
      expect(stateBytes(sandbox)).toBeLessThan(2_000_000);
      const shown = await sandbox.run(["runs", "show", String(parseSingleJson(held.stdout).runId), "--json"]);
      expect(shown.stdout).toContain("arguments_too_large");
      expect(shown.stdout).toContain("too_many_calls");
      expect(shown.stdout).not.toContain("zzzzzzzzzz");
    } finally {
      await server.close();
    }
  });
});
