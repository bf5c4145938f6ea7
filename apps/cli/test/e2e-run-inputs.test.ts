import { textTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import { agentEnv, setUpAgent } from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

const URI = "demo://resource/static/document/architecture.md";

describe.concurrent("agent run --prompt and --attach", () => {
  test("the MCP prompt, the attached resource and the run's prompt make the first message", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const model = await setUpAgent(sandbox, "openai", [textTurn("done")], {
      mcpServers: { everything: sandbox.everythingServer("everything") },
      policy: { rules: [{ tool: "mcp_server__everything__*", decision: "allow" }] },
    });
    try {
      const result = await sandbox.run(
        [
          "run",
          "and be brief",
          "--prompt",
          "everything:args-prompt",
          "--arg",
          "city=Paris",
          "--attach",
          `everything:${URI}`,
          "--json",
        ],
        { env: agentEnv("openai") },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(parseSingleJson(result.stdout)).toMatchObject({
        type: "run",
        status: "completed",
        output: "done",
      });
      const sent = JSON.stringify(model.requests[0]?.body);
      expect(sent).toContain("What's weather in Paris?");
      expect(sent).toContain(`Attached resource ${URI}`);
      expect(sent).toContain("and be brief");
    } finally {
      await model.close();
    }
  });

  test("a held fetch stops before the model (exit 3); approved, the same command runs", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const model = await setUpAgent(sandbox, "openai", [textTurn("read it")], {
      mcpServers: { everything: sandbox.everythingServer("everything") },
    });
    try {
      const command = ["run", "summarize", "--attach", `everything:${URI}`, "--json"];
      const held = await sandbox.run(command, { env: agentEnv("openai") });
      expect(held.code).toBe(3);
      const document = parseSingleJson(held.stdout);
      expect(document).toMatchObject({
        type: "run",
        status: "waiting",
        requestId: expect.stringMatching(/^apr_/),
      });
      expect(model.requests).toHaveLength(0);
      expect((await sandbox.run(["approvals", "approve", String(document.requestId)])).code).toBe(0);
      const again = await sandbox.run(command, { env: agentEnv("openai") });
      expect(again.code, again.stderr).toBe(0);
      expect(parseSingleJson(again.stdout)).toMatchObject({ status: "completed", output: "read it" });
    } finally {
      await model.close();
    }
  });

  test("bad references are usage errors", { timeout: E2E_TIMEOUT_MS }, async ({ sandbox }) => {
    const model = await setUpAgent(sandbox, "openai", [], {
      mcpServers: { everything: sandbox.everythingServer("everything") },
    });
    try {
      const results = await Promise.all([
        sandbox.run(["run", "x", "--attach", "no-colon"], { env: agentEnv("openai") }),
        sandbox.run(["run"], { env: agentEnv("openai") }),
        sandbox.run(["run", "x", "--arg", "a=b"], { env: agentEnv("openai") }),
      ]);
      for (const result of results) expect(result.code, result.stderr).toBe(2);
      expect(model.requests).toHaveLength(0);
    } finally {
      await model.close();
    }
  });
});
