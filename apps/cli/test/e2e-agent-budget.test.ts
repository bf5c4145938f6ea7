import { textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import { agentEnv, mcpCall, PROVIDERS, setUpAgent, writeAgentConfig } from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

const timeout = E2E_TIMEOUT_MS;

describe.concurrent.each(PROVIDERS)("agent run with model.maxTokens over the %s wire API", (provider) => {
  test("stops failed with token_budget_exceeded (exit 1); resume with a bigger budget goes on, counting from the saved totals", {
    timeout,
  }, async ({ sandbox }) => {
    const costly = {
      ...toolCallTurn([mcpCall("tc_1", "echo", { message: "hi" })]),
      usage: { inputTokens: 80, outputTokens: 30 },
    };
    const second = {
      ...toolCallTurn([mcpCall("tc_2", "echo", { message: "again" })]),
      usage: { inputTokens: 150, outputTokens: 5 },
    };
    const server = await setUpAgent(sandbox, provider, [costly, second], {
      policy: { rules: [{ tool: "mcp__s__echo", decision: "allow" }] },
      mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
      model: { maxTokens: 100 },
    });
    try {
      const stopped = await sandbox.run(["run", "say hi", "--json"], { env: agentEnv(provider) });
      expect(stopped.code, stopped.stderr).toBe(1);
      const document = parseSingleJson(stopped.stdout);
      expect(document).toEqual({
        type: "run",
        runId: expect.stringMatching(/^run_/),
        status: "failed",
        output: null,
        turns: 1,
        error: { code: "token_budget_exceeded", message: expect.stringContaining("110 tokens") },
      });
      // The turn that went past the budget had its call held back: nothing reached the server.
      expect(sandbox.received("s", "tools/call")).toHaveLength(0);
      const finished = sandbox.auditEvents().filter((event) => event.type === "run_finished");
      expect(finished).toEqual([
        expect.objectContaining({ status: "failed", code: "token_budget_exceeded" }),
      ]);

      // Same budget: refused again at once, without asking the model.
      const again = await sandbox.run(["resume", String(document.runId), "--json"], {
        env: agentEnv(provider),
      });
      expect(again.code, again.stderr).toBe(1);
      expect(parseSingleJson(again.stdout)).toMatchObject({
        status: "failed",
        error: { code: "token_budget_exceeded" },
      });
      expect(server.requests).toHaveLength(1);

      // A bigger budget configured: the held-back call runs once, and the next turn's 155 tokens
      // count on top of the 110 saved (265 > 200), so the run stops there, its second call unrun.
      writeAgentConfig(sandbox, provider, server, {
        policy: { rules: [{ tool: "mcp__s__echo", decision: "allow" }] },
        mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
        model: { maxTokens: 200 },
      });
      const resumed = await sandbox.run(["resume", String(document.runId), "--json"], {
        env: agentEnv(provider),
      });
      expect(resumed.code, resumed.stderr).toBe(1);
      expect(parseSingleJson(resumed.stdout)).toMatchObject({
        status: "failed",
        turns: 2,
        error: { code: "token_budget_exceeded", message: expect.stringContaining("265 tokens") },
      });
      expect(sandbox.received("s", "tools/call").map((call) => call.params)).toEqual([
        expect.objectContaining({ arguments: { message: "hi" } }),
      ]);
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test("names model.maxTokens when it is not a positive whole number (exit 2), asking no model", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [textTurn("never")], { model: { maxTokens: 0 } });
    try {
      const result = await sandbox.run(["run", "hi", "--json"], { env: agentEnv(provider) });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("model.maxTokens");
      writeAgentConfig(sandbox, provider, server, { model: { maxTokens: 12.5 } });
      const fraction = await sandbox.run(["run", "hi", "--json"], { env: agentEnv(provider) });
      expect(fraction.code).toBe(2);
      expect(fraction.stderr).toContain("model.maxTokens");
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});
