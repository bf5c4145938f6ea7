import { describe, expect } from "vitest";
import {
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  firstText,
  observationOf,
  parseSingleJson,
  e2eTest as test,
} from "./e2e-helpers.js";

const POLICY = {
  rules: [
    { tool: "mcp__s__echo", decision: "allow" },
    { tool: "mcp__s__fail", decision: "allow" },
    { tool: "mcp__s__env", decision: "deny", reason: "it would reveal the server's environment" },
    { tool: "mcp__noisy__echo", decision: "allow" },
  ],
};

function configure(sandbox: E2eSandbox): void {
  sandbox.writeConfig({
    policy: POLICY,
    mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
  });
}

describe.concurrent("agent call", () => {
  test("an allowed call reaches the server once and prints its answer", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    configure(sandbox);
    const [json, human] = await Promise.all([
      sandbox.run(["call", "mcp__s__echo", "--input", '{"message":"hello json"}', "--json"]),
      sandbox.run(["call", "mcp__s__echo", "--input", '{"message":"hello human"}']),
    ]);

    expect(json.code).toBe(0);
    const document = parseSingleJson(json.stdout);
    expect(document).toMatchObject({ type: "observation", runId: expect.stringMatching(/^run_/) });
    const observation = observationOf(json.stdout);
    expect(observation).toMatchObject({ ok: true, toolName: "mcp__s__echo" });
    expect(JSON.parse(firstText(observation))).toEqual({ message: "hello json" });

    expect(human.code).toBe(0);
    expect(human.stdout).toBe('{"message":"hello human"}\n');
    expect(human.stderr).toBe("");

    const calls = sandbox.received("s", "tools/call").map((record) => record.params);
    expect(calls).toHaveLength(2);
    expect(calls).toContainEqual(
      expect.objectContaining({ name: "echo", arguments: { message: "hello json" } }),
    );
    expect(calls).toContainEqual(
      expect.objectContaining({ name: "echo", arguments: { message: "hello human" } }),
    );
  });

  test("a call the policy denies never reaches the server and exits 1", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    configure(sandbox);
    const [json, human] = await Promise.all([
      sandbox.run(["call", "mcp__s__env", "--json"]),
      sandbox.run(["call", "mcp__s__env"]),
    ]);

    expect(json.code).toBe(1);
    expect(observationOf(json.stdout)).toMatchObject({
      ok: false,
      error: "policy_denied",
      reason: expect.stringContaining("it would reveal the server's environment"),
    });
    expect(human.code).toBe(1);
    expect(human.stdout).toBe("");
    expect(human.stderr).toMatch(/^error: policy_denied: .*it would reveal the server's environment/);

    expect(sandbox.received("s", "tools/call")).toEqual([]);
    const decisions = sandbox.auditEvents().filter((event) => event.type === "tool_call_decided");
    expect(decisions.map((event) => event.decision)).toEqual(["deny", "deny"]);
  });

  test("failed observations exit 1: tool error, invalid arguments, unknown tool", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox);
    const [toolError, invalid, unknown] = await Promise.all([
      sandbox.run(["call", "mcp__s__fail", "--json"]),
      sandbox.run(["call", "mcp__s__echo", "--input", '{"message":42}', "--json"]),
      sandbox.run(["call", "mcp__s__nonexistent", "--json"]),
    ]);

    expect(toolError.code).toBe(1);
    expect(observationOf(toolError.stdout)).toMatchObject({ ok: false, error: "mcp_tool_error" });
    expect(invalid.code).toBe(1);
    expect(observationOf(invalid.stdout)).toMatchObject({
      ok: false,
      error: "invalid_arguments",
      issues: [expect.objectContaining({ path: ["message"] })],
    });
    expect(unknown.code).toBe(1);
    expect(observationOf(unknown.stdout)).toMatchObject({ ok: false, error: "unknown_tool" });
    // Only the tool that exists and validated reached the server.
    expect(sandbox.received("s", "tools/call").map((record) => record.params)).toEqual([
      expect.objectContaining({ name: "fail" }),
    ]);
  });

  test("--json: stdout is exactly one JSON document, whatever the servers print", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: POLICY,
      mcpServers: {
        // Writes its diagnostic records on stderr.
        s: sandbox.scriptableServer("s"),
        // Writes banners and garbage on its stdout, between JSON-RPC messages.
        noisy: sandbox.misbehavingServer("noisy", "noisy-stdout"),
      },
    });
    // Every --json helper (observationOf, waitingIds, ...) insists on exactly one line of JSON; this
    // test adds servers that write to stderr and garbage to their protocol stdout.
    const [list, noisy] = await Promise.all([
      sandbox.run(["mcp", "list", "--json"]),
      sandbox.run(["call", "mcp__noisy__echo", "--input", '{"message":"y"}', "--json"]),
    ]);
    expect(list.code, list.stderr).toBe(0);
    const { servers } = parseSingleJson(list.stdout) as { servers: { status: string }[] };
    expect(servers.map((server) => server.status)).toEqual(["ready", "ready"]);
    expect(noisy.code, noisy.stderr).toBe(0);
    expect(JSON.parse(firstText(observationOf(noisy.stdout)))).toEqual({ message: "y" });
  });
});
