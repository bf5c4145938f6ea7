import { textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import { agentEnv, mcpCall, setUpAgent } from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

const provider = "openai";

describe("agent audit as the story of a run", () => {
  test("one line per step, in order; the plumbing only with --verbose", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    const server = await setUpAgent(
      sandbox,
      provider,
      [toolCallTurn([mcpCall("tc_1", "echo", { message: "hi" })]), textTurn("The server said hi.")],
      { mcpServers: { s: sandbox.scriptableServer("s") } },
    );
    try {
      const held = await sandbox.run(["run", "say hi", "--json"], { env: agentEnv(provider) });
      const { runId, requestId } = parseSingleJson(held.stdout) as { runId: string; requestId: string };
      expect((await sandbox.run(["approvals", "approve", requestId])).code).toBe(0);
      const resumed = await sandbox.run(["resume", runId, "--json"], { env: agentEnv(provider) });
      expect(parseSingleJson(resumed.stdout)).toMatchObject({ status: "completed" });

      const [story, verbose] = await Promise.all([
        sandbox.run(["audit", "--run", runId]),
        sandbox.run(["audit", "--run", runId, "--verbose"]),
      ]);
      expect(story.code, story.stderr).toBe(0);
      const lines = story.stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.replace(/^\d\d:\d\d:\d\d +/, ""));
      expect(lines).toEqual([
        expect.stringMatching(`^prompt: run ${runId} started on openai fake-model`),
        // The token counts are kept (their names look like a credential's; their values are numbers).
        expect.stringMatching(/^model turn 1 asked for 1 tool call · \d+ in, \d+ out tokens · /),
        expect.stringMatching(`^call mcp__s__echo \\(\\S+\\) held for approval, request ${requestId}$`),
        expect.stringMatching("^call mcp__s__echo \\(\\S+\\) waits for its approval$"),
        `run ${runId} waits for approval: ${requestId}`,
        expect.stringMatching(`^run ${runId} stopped: waiting after 1 turns · \\d+ in, \\d+ out tokens$`),
        expect.stringMatching(`^request ${requestId} approved by \\S+ \\(mcp__s__echo\\)$`),
        `run ${runId} resumed after turn 1`,
        expect.stringMatching(/^call mcp__s__echo \(\S+\) allowed by approval$/),
        expect.stringMatching(/^call mcp__s__echo \(\S+\) finished ok in /),
        `run ${runId} read untrusted content from mcp__s__echo at turn 1: its sinks are held from now on`,
        expect.stringMatching(/^model turn 2 answered/),
        expect.stringMatching(`^run ${runId} stopped: completed after 2 turns · \\d+ in, \\d+ out tokens$`),
      ]);
      // --verbose: every event of the run with its fields, plumbing included.
      expect(verbose.stdout).toMatch(/tool_call_finished {2}server=s toolName=mcp__s__echo/);
      expect(verbose.stdout).toMatch(/approval_consumed /);
      expect(verbose.stdout.split("\n").length).toBeGreaterThan(lines.length);
    } finally {
      await server.close();
    }
  });
});
