import { textTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import { agentEnv, setUpAgent } from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, type E2eSandbox, observationOf, e2eTest as test } from "./e2e-helpers.js";

const TRIGGER = [
  "call",
  "mcp__everything__trigger-sampling-request",
  "--input",
  '{"prompt":"a haiku","maxTokens":500}',
];

function servers(sandbox: E2eSandbox) {
  return { everything: { ...sandbox.everythingServer("everything"), sampling: { maxTokens: 40 } } };
}

describe.concurrent("sampling offered by the CLI", () => {
  test("held by default without a terminal; approved, the same request runs once on the configured model", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const model = await setUpAgent(sandbox, "openai", [textTurn("an approved haiku")], {
      mcpServers: servers(sandbox),
      policy: { rules: [{ tool: "mcp__everything__trigger-sampling-request", decision: "allow" }] },
    });
    try {
      const env = agentEnv("openai");
      const held = await sandbox.run([...TRIGGER, "--json"], { env });
      expect(held.code).toBe(1);
      const message = JSON.stringify(observationOf(held.stdout));
      const requestId = /held for approval (apr_[\w-]+)/.exec(message)?.[1];
      expect(requestId, message).toBeDefined();
      expect(model.requests).toHaveLength(0);
      expect((await sandbox.run(["approvals", "approve", requestId ?? ""])).code).toBe(0);
      const again = await sandbox.run([...TRIGGER, "--json"], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.stringify(observationOf(again.stdout))).toContain("an approved haiku");
      expect(model.requests).toHaveLength(1);
      // Capped at the server entry's maxTokens, not the 500 the server asked for.
      expect(JSON.stringify(model.requests[0]?.body)).toMatch(/"max(_completion)?_tokens":40/);
    } finally {
      await model.close();
    }
  });

  test("a rule naming the server lets it run; without an entry, sampling is not offered", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const model = await setUpAgent(sandbox, "openai", [textTurn("an allowed haiku")], {
      mcpServers: { ...servers(sandbox), plain: sandbox.everythingServer("plain") },
      policy: {
        rules: [
          { tool: "mcp__*__trigger-sampling-request", decision: "allow" },
          { tool: "mcp_sampling__everything", decision: "allow" },
        ],
      },
    });
    try {
      const env = agentEnv("openai");
      const allowed = await sandbox.run(TRIGGER, { env });
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toContain("an allowed haiku");
      // server-everything lists its sampling tool only to clients that offer sampling.
      const plain = await sandbox.run(["call", "mcp__plain__trigger-sampling-request", "--input", "{}"], {
        env,
      });
      expect(plain.code).toBe(1);
      expect(plain.stderr).toContain("unknown_tool");
    } finally {
      await model.close();
    }
  });
});
