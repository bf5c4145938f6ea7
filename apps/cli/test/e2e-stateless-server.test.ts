import { startLoopbackHttpServer, statelessServerPath } from "@agent/mcp-testing/servers";
import { describe, expect } from "vitest";
import { E2E_TIMEOUT_MS, firstText, observationOf, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

// Each test has its own server, killed through its own context: concurrent tests share no hook.
describe.concurrent("a stateless 2026-07-28 HTTP server", () => {
  test("mcp list shows its era and version and the tool its invalid x-mcp-header rejected; a call carries the header", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox, onTestFinished }) => {
    const http = await startLoopbackHttpServer(statelessServerPath(), []);
    onTestFinished(() => http.kill());
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__modern__route", decision: "allow" }] },
      mcpServers: { modern: { type: "http", url: http.url } },
    });

    const json = await sandbox.run(["mcp", "list", "--json"]);
    expect(json.code).toBe(0);
    expect(parseSingleJson(json.stdout)).toMatchObject({
      servers: [
        {
          name: "modern",
          status: "ready",
          protocolVersion: "2026-07-28",
          protocolEra: "stateless",
          rejected: [{ remoteName: "broken", reason: expect.stringMatching(/^invalid_tool_header: /) }],
        },
      ],
    });

    const text = await sandbox.run(["mcp", "list"]);
    expect(text.stdout).toMatch(/modern {2}ready {2}protocol 2026-07-28 \(stateless\) {2}3 tools/);
    expect(text.stdout).toMatch(/rejected broken: invalid_tool_header: /);

    const call = await sandbox.run([
      "call",
      "mcp__modern__route",
      "--input",
      '{"region":"eu-west1"}',
      "--json",
    ]);
    expect(call.code).toBe(0);
    expect(JSON.parse(firstText(observationOf(call.stdout)))).toMatchObject({
      "mcp-method": "tools/call",
      "mcp-param-region": "eu-west1",
    });
  });

  test("an input request inside a call goes to the operator: with no terminal it is declined, never accepted", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox, onTestFinished }) => {
    const http = await startLoopbackHttpServer(statelessServerPath(), []);
    onTestFinished(() => http.kill());
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__modern__confirm", decision: "allow" }] },
      mcpServers: { modern: { type: "http", url: http.url } },
    });
    const call = await sandbox.run(["call", "mcp__modern__confirm", "--input", "{}", "--json"]);
    expect(call.code).toBe(0);
    expect(JSON.parse(firstText(observationOf(call.stdout)))).toEqual({
      answer: { action: "decline" },
      stateEchoed: true,
    });
    const audit = sandbox.auditEvents().filter((event) => event.type === "mcp_elicitation");
    expect(audit).toEqual([
      expect.objectContaining({ server: "modern", action: "decline", outcome: "answered" }),
    ]);
  });
});
