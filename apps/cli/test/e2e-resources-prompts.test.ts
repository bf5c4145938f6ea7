import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { legacyServerPath, startLoopbackHttpServer } from "@agent/mcp-testing/servers";
import { describe, expect } from "vitest";
import {
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  EVERYTHING_SERVER,
  observationOf,
  parseSingleJson,
  e2eTest as test,
  waitingIds,
} from "./e2e-helpers.js";

function configure(sandbox: E2eSandbox, policy: Record<string, unknown> = {}): void {
  sandbox.writeConfig({
    policy,
    mcpServers: { everything: sandbox.everythingServer("everything", { wire: true }) },
  });
}

const ALLOW_SERVER = { rules: [{ tool: "mcp_server__everything__*", decision: "allow" }] };

describe.concurrent("agent resources and prompts", () => {
  test("list what the server advertised, as JSON and as text", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    configure(sandbox);
    const [resources, prompts, human] = await Promise.all([
      sandbox.run(["resources", "list", "everything", "--json"]),
      sandbox.run(["prompts", "list", "--json"]),
      sandbox.run(["resources", "list"]),
    ]);
    expect(resources.code).toBe(0);
    const listed = parseSingleJson(resources.stdout) as { servers: { resources: { uri: string }[] }[] };
    expect(listed.servers[0]).toMatchObject({ name: "everything", status: "ready", rejected: [] });
    expect(listed.servers[0]?.resources.length).toBeGreaterThan(0);
    expect(prompts.code).toBe(0);
    expect(JSON.stringify(parseSingleJson(prompts.stdout))).toContain('"args-prompt"');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("(template)");
    // Listing reads what discovery read: no resources/read reached the server.
    expect(sandbox.received("everything", "resources/read")).toEqual([]);
  });

  test("a read is held by default (exit 3); approved, resume reads it once", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox);
    const listed = parseSingleJson(
      (await sandbox.run(["resources", "list", "everything", "--json"])).stdout,
    ) as {
      servers: { resources: { uri: string }[] }[];
    };
    const uri = listed.servers[0]?.resources[0]?.uri ?? "";
    const held = await sandbox.run(["resources", "read", "everything", uri, "--json"]);
    expect(held.code).toBe(3);
    expect(sandbox.received("everything", "resources/read")).toEqual([]);
    const { runId, requestId } = waitingIds(held.stdout);
    expect((await sandbox.run(["approvals", "approve", requestId])).code).toBe(0);
    const resumed = await sandbox.run(["resume", runId, "--json"]);
    expect(resumed.code).toBe(0);
    expect(observationOf(resumed.stdout)).toMatchObject({
      ok: true,
      output: { content: [{ type: "resource", resource: { uri } }] },
    });
    expect(sandbox.received("everything", "resources/read")).toHaveLength(1);
  });

  test("a URI the server never advertised is refused before the gate, and nothing is sent", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox, ALLOW_SERVER);
    const result = await sandbox.run(["resources", "read", "everything", "file:///etc/passwd", "--json"]);
    expect(result.code).toBe(1);
    expect(observationOf(result.stdout)).toMatchObject({ ok: false, error: "invalid_arguments" });
    expect(sandbox.received("everything", "resources/read")).toEqual([]);
  });

  test("a policy rule naming the server allows reads and prompts; --arg carries the arguments", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox, ALLOW_SERVER);
    const [prompt, missing] = await Promise.all([
      sandbox.run([
        "prompts",
        "get",
        "everything",
        "args-prompt",
        "--arg",
        "city=Paris",
        "--arg",
        "state=TX",
      ]),
      sandbox.run(["prompts", "get", "everything", "args-prompt", "--json"]),
    ]);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain("What's weather in Paris, TX?");
    expect(missing.code).toBe(1);
    expect(observationOf(missing.stdout)).toMatchObject({ error: "invalid_arguments" });
    expect(sandbox.received("everything", "prompts/get")).toHaveLength(1);
  });

  test("a deny of the server's tools denies its resources and prompts: nothing is read", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox, {
      defaults: { external: "allow" },
      rules: [{ tool: "mcp__everything__*", decision: "deny", reason: "everything is off" }],
    });
    const [read, prompt] = await Promise.all([
      sandbox.run([
        "resources",
        "read",
        "everything",
        "demo://resource/static/document/architecture.md",
        "--json",
      ]),
      sandbox.run(["prompts", "get", "everything", "simple-prompt", "--json"]),
    ]);
    for (const result of [read, prompt]) {
      expect(result.code, result.stderr).toBe(1);
      expect(observationOf(result.stdout)).toMatchObject({ ok: false, error: "policy_denied" });
      expect(result.stdout).toContain("everything is off");
    }
    expect(read.stdout + read.stderr).not.toContain("Everything Server – Architecture");
    expect(sandbox.received("everything", "resources/read")).toEqual([]);
    expect(sandbox.received("everything", "prompts/get")).toEqual([]);
  });

  test("usage errors exit 2", { timeout: E2E_TIMEOUT_MS }, async ({ sandbox }) => {
    configure(sandbox);
    const results = await Promise.all([
      sandbox.run(["resources", "read", "everything"]),
      sandbox.run(["prompts", "get", "everything", "x", "--arg", "novalue"]),
      sandbox.run(["resources", "list", "nosuchserver"]),
      sandbox.run(["resources", "delete"]),
    ]);
    for (const result of results) expect(result.code).toBe(2);
  });
});

describe.concurrent("what the CLI offers servers", () => {
  test("roots: the workspace root's real path only", { timeout: E2E_TIMEOUT_MS }, async ({ sandbox }) => {
    // No env in this entry: the CLI redacts env values, and the record file's path holds the sandbox's.
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__everything__get-roots-list", decision: "allow" }] },
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] } },
    });
    const result = await sandbox.run(["call", "mcp__everything__get-roots-list", "--json"]);
    expect(result.code).toBe(0);
    const text = JSON.stringify(observationOf(result.stdout));
    expect(text, text).toContain(pathToFileURL(realpathSync(sandbox.workspace)).href);
  });

  test("a form without a terminal is declined at once, audited without values", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    configure(sandbox, {
      rules: [{ tool: "mcp__everything__trigger-elicitation-request", decision: "allow" }],
    });
    const result = await sandbox.run(["call", "mcp__everything__trigger-elicitation-request"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("declined");
    expect(result.stderr).toContain('MCP server "everything" asked for input; declined (no terminal).');
    const audit = sandbox.auditEvents().filter((event) => event.type === "mcp_elicitation");
    expect(audit).toEqual([
      expect.objectContaining({ server: "everything", action: "decline", outcome: "answered" }),
    ]);
  });

  test('a legacy HTTP+SSE server ("type": "sse") on protocol 2024-11-05', {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    const server = await startLoopbackHttpServer(legacyServerPath(), ["sse"], { path: "/sse" });
    try {
      await legacyOverSse(sandbox, server.url);
    } finally {
      await server.kill();
    }
  });
});

/** `mcp list` and a call against the legacy server at `url`, configured as `"type": "sse"`. */
async function legacyOverSse(sandbox: E2eSandbox, url: string): Promise<void> {
  sandbox.writeConfig({
    policy: { rules: [{ tool: "mcp__legacy__echo", decision: "allow" }] },
    mcpServers: { legacy: { type: "sse", url } },
  });
  const list = await sandbox.run(["mcp", "list", "--json"]);
  expect(list.code).toBe(0);
  expect(parseSingleJson(list.stdout)).toMatchObject({
    servers: [{ name: "legacy", protocolVersion: "2024-11-05" }],
  });
  const echo = await sandbox.run(["call", "mcp__legacy__echo", "--input", '{"message":"old times"}']);
  expect(echo.code).toBe(0);
  expect(echo.stdout).toBe("old times\n");
}
