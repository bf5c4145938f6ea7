import { assertNoProcessesAlive, processTreeOf } from "@agent/mcp-testing/servers";
import { describe, expect } from "vitest";
import {
  CAN_RUN_IN_TERMINAL,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  observationOf,
  e2eTest as test,
  waitFor,
} from "./e2e-helpers.js";

/**
 * Starts `call`, waits until `started()` says the server is working on it, then sends SIGINT (or
 * `signal`) to the CLI process alone (as a terminal would: servers run in their own process groups).
 * Checks exit 130 (143 for SIGTERM), a `cancelled` observation, that the server received `notifications/cancelled` for the call, and
 * that no process of the call's tree is left.
 */
async function interruptCall(
  sandbox: E2eSandbox,
  options: {
    server: string;
    tool: string;
    input: unknown;
    started: () => boolean;
    signal?: "SIGINT" | "SIGTERM";
  },
): Promise<void> {
  const signal = options.signal ?? "SIGINT";
  const agent = sandbox.start([
    "call",
    `mcp__${options.server}__${options.tool}`,
    "--input",
    JSON.stringify(options.input),
    "--json",
  ]);
  await waitFor(`the server to work on ${options.tool}`, options.started, 15_000);
  // Taken while the tree is intact: the CLI, the recorder in front of the server, the server.
  const tree = processTreeOf(agent.pid);
  expect(tree.length).toBeGreaterThanOrEqual(3);

  agent.child.kill(signal);
  const result = await agent.exited;

  expect(result.code, result.stderr).toBe(signal === "SIGTERM" ? 143 : 130);
  expect(observationOf(result.stdout)).toMatchObject({ ok: false, error: "cancelled" });
  const [call] = sandbox.received(options.server, "tools/call");
  expect(call?.params).toMatchObject({ name: options.tool });
  const cancelled = sandbox
    .received(options.server, "notifications/cancelled")
    .map((record) => (record.params as { requestId: unknown }).requestId);
  // The call is cancelled once. A server that announced list_changed may also have a rediscovery
  // (tools/list) in flight when the CLI closes: that one is cancelled too, as MCP asks, and nothing else.
  expect(cancelled.filter((id) => id === call?.id)).toEqual([call?.id]);
  const listings = sandbox.received(options.server, "tools/list").map((record) => record.id);
  expect(cancelled.filter((id) => id !== call?.id).every((id) => listings.includes(id as number))).toBe(true);
  await assertNoProcessesAlive(tree, 3_000);

  const finished = sandbox.auditEvents().filter((event) => event.type === "tool_call_finished");
  expect(finished).toEqual([expect.objectContaining({ ok: false, code: "cancelled" })]);
}

describe.concurrent("Ctrl-C during a call", () => {
  test("cancels the call on the server, closes it, and exits 130 leaving no process", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__s__slow", decision: "allow" }] },
      mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
    });
    await interruptCall(sandbox, {
      server: "s",
      tool: "slow",
      input: { maxMs: 20_000 },
      // `slow` records each progress step it reports.
      started: () => sandbox.records("s").some((record) => record.event === "progress"),
    });
    // The server itself saw its request aborted.
    expect(sandbox.records("s")).toContainEqual(
      expect.objectContaining({ event: "cancelled", tool: "slow" }),
    );
  });

  test("SIGTERM cancels the call the same way and exits 143 (128 + 15)", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__s__slow", decision: "allow" }] },
      mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
    });
    await interruptCall(sandbox, {
      server: "s",
      tool: "slow",
      input: { maxMs: 20_000 },
      started: () => sandbox.records("s").some((record) => record.event === "progress"),
      signal: "SIGTERM",
    });
  });

  test("a server that ignores the cancellation is still shut down", { timeout: E2E_TIMEOUT_MS }, async ({
    sandbox,
  }) => {
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__h__hang", decision: "allow" }] },
      mcpServers: { h: sandbox.misbehavingServer("h", "hang-call", { wire: true }) },
    });
    await interruptCall(sandbox, {
      server: "h",
      tool: "hang",
      input: {},
      started: () => sandbox.received("h", "tools/call").length > 0,
    });
  });

  test("the real server-everything: a long-running operation is cancelled", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__everything__trigger-long-running-operation", decision: "allow" }] },
      mcpServers: { everything: sandbox.everythingServer("everything", { wire: true }) },
    });
    await interruptCall(sandbox, {
      server: "everything",
      tool: "trigger-long-running-operation",
      input: { duration: 30, steps: 30 },
      started: () => sandbox.received("everything", "tools/call").length > 0,
    });
  });

  test("Ctrl-C while the server is still starting reports the call cancelled, not unknown", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      policy: { rules: [{ tool: "mcp__h__lookup", decision: "allow" }] },
      mcpServers: { h: sandbox.misbehavingServer("h", "hang-initialize", { timeoutMs: 30_000 }) },
    });
    const agent = sandbox.start(["call", "mcp__h__lookup", "--json"]);
    await waitFor("the handshake to start", () =>
      sandbox
        .records("h")
        .some((record) => record.event === "received" && record.method === "server/discover"),
    );
    const tree = processTreeOf(agent.pid);
    expect(tree.length).toBeGreaterThanOrEqual(2);

    agent.child.kill("SIGINT");
    const result = await agent.exited;

    expect(result.code, result.stderr).toBe(130);
    await assertNoProcessesAlive(tree, 3_000);
    // The user cancelled; the tool's server never got to say what it offers.
    expect(observationOf(result.stdout)).toMatchObject({ ok: false, error: "cancelled" });
  });

  /** Three servers that never answer the handshake; resolves once each is waiting on it (on its era probe, server/discover). */
  async function threeSlowServers(sandbox: E2eSandbox): Promise<void> {
    const names = ["a", "b", "c"];
    const slow = (name: string) => sandbox.misbehavingServer(name, "hang-initialize", { timeoutMs: 30_000 });
    sandbox.writeConfig({ mcpServers: Object.fromEntries(names.map((name) => [name, slow(name)])) });
  }

  function allWaitingOnHandshake(sandbox: E2eSandbox): boolean {
    return ["a", "b", "c"].every((name) =>
      sandbox
        .records(name)
        .some((record) => record.event === "received" && record.method === "server/discover"),
    );
  }

  test("Ctrl-C during mcp list prints one line, not one per server, exits 130 and leaves no process", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    await threeSlowServers(sandbox);
    const agent = sandbox.start(["mcp", "list"]);
    await waitFor("every server's handshake", () => allWaitingOnHandshake(sandbox), 15_000);
    const tree = processTreeOf(agent.pid);
    expect(tree.length).toBeGreaterThanOrEqual(4);

    agent.child.kill("SIGINT");
    const result = await agent.exited;

    expect(result.code, result.stderr).toBe(130);
    expect(result.stderr.trimEnd().split("\n")).toEqual(["interrupted: closed 3 servers"]);
    // Nothing listed as failed for a reason the user gave: the one line says it all.
    expect(result.stdout).not.toMatch(/failed|cancelled/);
    await assertNoProcessesAlive(tree, 3_000);
  });

  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "Ctrl-C at a terminal during mcp list: no progress line per server, the one interrupted line",
    { timeout: E2E_TIMEOUT_MS },
    async ({ sandbox }) => {
      await threeSlowServers(sandbox);
      const agent = sandbox.start(["mcp", "list"], { terminal: true, stdin: true });
      await waitFor("every server's handshake", () => allWaitingOnHandshake(sandbox), 15_000);
      const tree = processTreeOf(agent.pid);
      // Typed at the terminal: the line discipline sends SIGINT to the foreground process group.
      agent.child.stdin?.write("\u0003");
      const result = await agent.exited;

      expect(result.code, result.stdout).toBe(130);
      // stdout and stderr share the terminal; the progress header came before the interruption.
      // The terminal echoes the typed ^C at the start of the next line.
      const lines = result.stdout.split(/\r?\n/).map((line) => line.replace(/^\^C/, ""));
      expect(lines.filter((line) => /interrupted|cancelled|failed|✗/.test(line))).toEqual([
        expect.stringMatching(/^interrupted: closed 3 servers$/),
      ]);
      await assertNoProcessesAlive(tree, 3_000);
    },
  );

  for (const [signal, code] of [
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const) {
    test(`a second ${signal} exits ${code} at once, and still leaves no server process behind`, {
      timeout: E2E_TIMEOUT_MS,
    }, async ({ sandbox }) => {
      // This server ignores SIGTERM and the end of its stdin, and has a child that ignores SIGTERM too.
      sandbox.writeConfig({
        mcpServers: { stubborn: sandbox.misbehavingServer("stubborn", "ignore-sigterm") },
      });
      const agent = sandbox.start(["mcp", "list", "--json"]);
      await waitFor("the server and its child", () => {
        const events = sandbox.records("stubborn").map((record) => record.event);
        return events.includes("started") && events.includes("grandchild");
      });
      const tree = processTreeOf(agent.pid);
      expect(tree.length).toBeGreaterThanOrEqual(3);

      agent.child.kill(signal);
      // The first signal starts a graceful close, which this server makes slow; the second means "now".
      await new Promise((resolve) => setTimeout(resolve, 200));
      agent.child.kill(signal);
      const result = await agent.exited;

      expect(result.code).toBe(code);
      await assertNoProcessesAlive(tree, 3_000);
    });
  }
});

describe.concurrent("the tool timeout", () => {
  test("a call that outlives toolTimeoutMs is cancelled on the server and reported as timeout", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({
      toolTimeoutMs: 500,
      policy: { rules: [{ tool: "mcp__s__slow", decision: "allow" }] },
      mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
    });
    const result = await sandbox.run(["call", "mcp__s__slow", "--input", '{"maxMs":20000}', "--json"]);

    expect(result.code, result.stderr).toBe(1);
    expect(observationOf(result.stdout)).toMatchObject({ ok: false, error: "timeout" });
    const [call] = sandbox.received("s", "tools/call");
    const cancellations = sandbox.received("s", "notifications/cancelled");
    expect(cancellations.map((record) => (record.params as { requestId: unknown }).requestId)).toEqual([
      call?.id,
    ]);
  });
});
