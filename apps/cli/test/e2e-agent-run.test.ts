import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import { hangReply, statusReply } from "@agent/models/testing/server";
import { describe, expect } from "vitest";
import {
  agentEnv,
  mcpCall,
  PROVIDERS,
  setUpAgent,
  TEST_API_KEY,
  toolResultsSent,
  toolsOffered,
} from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test, waitFor } from "./e2e-helpers.js";

const timeout = E2E_TIMEOUT_MS;

describe.concurrent.each(PROVIDERS)("agent run over the %s wire API", (provider) => {
  test("runs an allowed call on the MCP server and completes (--json, no streaming)", { timeout }, async ({
    sandbox,
  }) => {
    const server = await setUpAgent(
      sandbox,
      provider,
      [toolCallTurn([mcpCall("tc_1", "echo", { message: "hi" })]), textTurn("the server said hi")],
      {
        policy: { rules: [{ tool: "mcp__s__echo", decision: "allow" }] },
        mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
      },
    );
    try {
      const result = await sandbox.run(["run", "say hi", "--json"], { env: agentEnv(provider) });
      expect(result.code, result.stderr).toBe(0);
      const document = parseSingleJson(result.stdout);
      expect(document).toEqual({
        type: "run",
        runId: expect.stringMatching(/^run_/),
        status: "completed",
        output: "the server said hi",
        turns: 2,
      });
      expect(sandbox.received("s", "tools/call").map((call) => call.params)).toEqual([
        expect.objectContaining({ name: "echo", arguments: { message: "hi" } }),
      ]);
      expect(server.requests.map((request) => request.stream)).toEqual([false, false]);
      expect(toolResultsSent(server, 1).join("")).toContain("hi");
      const types = sandbox.auditEvents().map((event) => event.type);
      expect(types).toEqual(
        expect.arrayContaining([
          "run_started",
          "model_request_finished",
          "tool_call_decided",
          "run_finished",
        ]),
      );
    } finally {
      await server.close();
    }
  });

  test("streams the assistant's text and shows each call on one line without --json", { timeout }, async ({
    sandbox,
  }) => {
    const server = await setUpAgent(
      sandbox,
      provider,
      [
        toolCallTurn([mcpCall("tc_1", "echo", { message: "hi" })], "Let me check."),
        textTurn("All done.\u001b[31m"),
      ],
      {
        policy: { rules: [{ tool: "mcp__s__echo", decision: "allow" }] },
        mcpServers: { s: sandbox.scriptableServer("s") },
      },
    );
    try {
      const result = await sandbox.run(["run", "say hi"], { env: agentEnv(provider) });
      expect(result.code, result.stderr).toBe(0);
      expect(server.requests.map((request) => request.stream)).toEqual([true, true]);
      expect(result.stdout).toContain("Let me check.");
      // The model's escape sequence reaches the terminal escaped.
      expect(result.stdout).toContain("All done.\\x1b[31m");
      expect(result.stdout).not.toContain("\u001b");
      expect(result.stderr).toMatch(/mcp__s__echo .*allowed \(policy\) → ok/);
    } finally {
      await server.close();
    }
  });
});

// The remaining paths once, over Chat Completions: both adapters go through each of them over HTTP
// in packages/loop/test/agent-over-http.test.ts, without a process per case.
describe.concurrent.each(["openai"] as const)("agent run over the %s wire API", (provider) => {
  test("gives denied, unparsable, mistyped and unknown calls back to the model, sending nothing to the server", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(
      sandbox,
      provider,
      [
        toolCallTurn([
          mcpCall("tc_deny", "fail", {}),
          // Only Chat Completions carries arguments as text: the Anthropic API sends JSON objects.
          ...(provider === "openai"
            ? [{ id: "tc_json", name: "mcp__s__echo", raw: '{"message": "unterminated' }]
            : []),
          mcpCall("tc_type", "echo", { message: 42 }),
          mcpCall("tc_unknown", "launch", {}),
        ]),
        textTurn("understood"),
      ],
      {
        policy: {
          rules: [
            { tool: "mcp__s__echo", decision: "allow" },
            { tool: "mcp__s__fail", decision: "deny", reason: "not in tests" },
          ],
        },
        mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
      },
    );
    try {
      const result = await sandbox.run(["run", "try"], { env: agentEnv(provider) });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe("understood\n");
      expect(sandbox.received("s", "tools/call")).toEqual([]);
      expect(toolsOffered(server, 0)).toContain("mcp__s__echo");
      expect(toolsOffered(server, 0)).not.toContain("mcp__s__fail");
      const results = toolResultsSent(server, 1).map((text) => JSON.parse(text).error);
      const unparsable = provider === "openai" ? ["invalid_arguments"] : [];
      expect(results).toEqual(["policy_denied", ...unparsable, "invalid_arguments", "unknown_tool"]);
    } finally {
      await server.close();
    }
  });

  test("stops at --max-turns with exit 1", { timeout }, async ({ sandbox }) => {
    const again = toolCallTurn([mcpCall("tc", "echo", { message: "again" })]);
    const server = await setUpAgent(sandbox, provider, [again, again, again], {
      // Echo sends nothing anywhere: allowed in a tainted run too (the flow guard would hold it).
      policy: { rules: [{ tool: "mcp__s__echo", decision: "allow", tainted: "allow" }] },
      mcpServers: { s: sandbox.scriptableServer("s") },
    });
    try {
      const result = await sandbox.run(["run", "loop", "--json", "--max-turns", "2"], {
        env: agentEnv(provider),
      });
      expect(result.code, result.stderr).toBe(1);
      expect(parseSingleJson(result.stdout)).toMatchObject({ status: "max_turns", turns: 2, output: null });
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test("retries a transient 500 and completes", { timeout }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [
      statusReply(500, { headers: { "retry-after-ms": "1" } }),
      textTurn("fine now"),
    ]);
    try {
      const result = await sandbox.run(["run", "hi", "--json"], { env: agentEnv(provider) });
      expect(result.code, result.stderr).toBe(0);
      expect(parseSingleJson(result.stdout)).toMatchObject({
        status: "completed",
        output: "fine now",
        turns: 1,
      });
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test("reports a 401 as a failed run, never showing the key", { timeout }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [statusReply(401, { message: "invalid api key" })]);
    try {
      const result = await sandbox.run(["run", "hi", "--json"], { env: agentEnv(provider) });
      expect(result.code, result.stderr).toBe(1);
      expect(parseSingleJson(result.stdout)).toMatchObject({
        status: "failed",
        output: null,
        error: { code: "model_authentication" },
      });
      // Not retried: one request.
      expect(server.requests).toHaveLength(1);
      const everything = [
        result.stdout,
        result.stderr,
        ...readdirSync(sandbox.stateDir).map((file) => readFileSync(join(sandbox.stateDir, file), "latin1")),
      ].join("\n");
      expect(everything).not.toContain(TEST_API_KEY);
    } finally {
      await server.close();
    }
  });

  test("Ctrl-C while the model thinks cancels the request, saves the run, exits 130; resume completes it", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [hangReply()]);
    try {
      const agent = sandbox.start(["run", "hi", "--json"], { env: agentEnv(provider) });
      await waitFor("the model request", () => server.requests.length === 1);
      agent.child.kill("SIGINT");
      const result = await agent.exited;
      expect(result.code, result.stderr).toBe(130);
      const document = parseSingleJson(result.stdout);
      expect(document).toMatchObject({ status: "cancelled", turns: 0 });
      // The HTTP request was abandoned, not answered.
      expect(await server.whenClosed(0)).toMatchObject({ completed: false, closed: true });

      server.push(textTurn("answered at last"));
      const resumed = await sandbox.run(["resume", String(document.runId), "--json"], {
        env: agentEnv(provider),
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(parseSingleJson(resumed.stdout)).toMatchObject({
        status: "completed",
        output: "answered at last",
      });
    } finally {
      await server.close();
    }
  });
});

describe.concurrent("agent run: configuration", () => {
  test("exits 2 naming the variable when the key is missing, and asks the model nothing", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, "openai", [textTurn("never")], {
      model: { apiKeyEnv: "MY_MODEL_KEY" },
    });
    try {
      const result = await sandbox.run(["run", "hi", "--json"], { env: { OPENAI_API_KEY: TEST_API_KEY } });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("MY_MODEL_KEY");
      expect(result.stderr).not.toContain(TEST_API_KEY);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  });

  test("refuses an API key written into the file, without echoing it", { timeout }, async ({ sandbox }) => {
    sandbox.writeConfig({ model: { provider: "openai", name: "m", apiKey: TEST_API_KEY } });
    const result = await sandbox.run(["run", "hi"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("model.apiKey");
    expect(result.stderr).toContain("apiKeyEnv");
    expect(result.stderr).not.toContain(TEST_API_KEY);
  });

  test("exits 2 when no model is configured, and for a bad --max-turns", { timeout }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    const missing = await sandbox.run(["run", "hi"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('"model"');
    const bad = await sandbox.run(["run", "hi", "--max-turns", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--max-turns");
  });
});
