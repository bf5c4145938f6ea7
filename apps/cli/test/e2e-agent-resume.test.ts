import { assertNoProcessesAlive, processTreeOf } from "@agent/mcp-testing/servers";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import {
  agentEnv,
  mcpCall,
  PROVIDERS,
  setUpAgent,
  toolResultsSent,
  toolsOffered,
  writeAgentConfig,
} from "./e2e-agent-helpers.js";
import {
  AS_INVOKED,
  CAN_RUN_IN_TERMINAL,
  E2E_TIMEOUT_MS,
  parseSingleJson,
  e2eTest as test,
  waitFor,
} from "./e2e-helpers.js";

const timeout = E2E_TIMEOUT_MS;
// Three or four CLI processes one after the other.
const longTimeout = E2E_TIMEOUT_MS * 3;

describe.concurrent.each(PROVIDERS)("agent runs that wait and resume, over the %s wire API", (provider) => {
  test("holds a call, is approved from another process, and resumes without asking the model again", {
    timeout: longTimeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(
      sandbox,
      provider,
      [toolCallTurn([mcpCall("tc_1", "echo", { message: "held" })]), textTurn("done after approval")],
      { mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) } },
    );
    try {
      const held = await sandbox.run(["run", "echo held", "--json"], { env: agentEnv(provider) });
      expect(held.code, held.stderr).toBe(3);
      const waiting = parseSingleJson(held.stdout);
      expect(waiting).toMatchObject({ type: "run", status: "waiting", output: null, turns: 1 });
      expect(sandbox.received("s", "tools/call")).toEqual([]);

      const approved = await sandbox.run(["approvals", "approve", String(waiting.requestId)]);
      expect(approved.code, approved.stderr).toBe(0);
      const resumed = await sandbox.run(["resume", String(waiting.runId), "--json"], {
        env: agentEnv(provider),
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(parseSingleJson(resumed.stdout)).toEqual({
        type: "run",
        runId: waiting.runId,
        status: "completed",
        output: "done after approval",
        turns: 2,
      });
      // Two model requests in all: the turn that held was not asked for again.
      expect(server.requests).toHaveLength(2);
      expect(sandbox.received("s", "tools/call")).toHaveLength(1);
      expect(toolResultsSent(server, 1).join("")).toContain("held");
      const types = sandbox.auditEvents().map((event) => event.type);
      expect(types).toEqual(expect.arrayContaining(["run_waiting", "run_resumed", "approval_consumed"]));
    } finally {
      await server.close();
    }
  });
});

describe.concurrent("agent runs: resume, interrupt, caps, listings", () => {
  const provider = "openai";
  test("a machine whose configuration lacks the held call's server refuses to resume it, saying why", {
    timeout: longTimeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(
      sandbox,
      provider,
      [toolCallTurn([mcpCall("tc_1", "echo", { message: "held" })]), textTurn("done")],
      { mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) } },
    );
    try {
      const held = parseSingleJson(
        (await sandbox.run(["run", "echo held", "--json"], { env: agentEnv(provider) })).stdout,
      );
      expect((await sandbox.run(["approvals", "approve", String(held.requestId)])).code).toBe(0);
      // The same state, another configuration: no server "s" here.
      writeAgentConfig(sandbox, provider, server, {});
      const refused = await sandbox.run(["resume", String(held.runId), "--json"], {
        env: agentEnv(provider),
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("mcp__s__echo");
      expect(refused.stderr).toContain("MCP server s");
      expect(server.requests).toHaveLength(1);
      // Where the server is configured, the run resumes and the call runs once.
      writeAgentConfig(sandbox, provider, server, {
        mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
      });
      const resumed = await sandbox.run(["resume", String(held.runId), "--json"], {
        env: agentEnv(provider),
      });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(sandbox.received("s", "tools/call")).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  test("without a terminal, says which commands approve and resume a held call", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [toolCallTurn([mcpCall("tc_1", "echo", {})])], {
      mcpServers: { s: sandbox.scriptableServer("s") },
    });
    try {
      const held = await sandbox.run(["run", "echo"], { env: agentEnv(provider) });
      expect(held.code, held.stderr).toBe(3);
      expect(held.stderr).toMatch(/held for approval \(request apr_/);
      expect(held.stderr).toContain(`${AS_INVOKED} approvals approve apr_`);
      expect(held.stderr).toContain(`${AS_INVOKED} resume run_`);
    } finally {
      await server.close();
    }
  });
  test.skipIf(!CAN_RUN_IN_TERMINAL)(
    "on a terminal, asks about a held call at the prompt and goes on in the same process",
    { timeout },
    async ({ sandbox }) => {
      const server = await setUpAgent(
        sandbox,
        "openai",
        [toolCallTurn([mcpCall("tc_1", "echo", { message: "asked" })], "Calling echo."), textTurn("Echoed.")],
        { mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) } },
      );
      try {
        const agent = sandbox.start(["run", "echo asked"], {
          terminal: true,
          stdin: true,
          env: agentEnv("openai"),
        });
        await waitFor("the approval prompt", () =>
          agent.stdout().includes("Approve this exact call once? [y/N]"),
        );
        expect(agent.stdout()).toContain("mcp__s__echo (external)");
        agent.child.stdin?.write("y\n");
        const result = await agent.exited;
        expect(result.code, result.stdout).toBe(0);
        expect(result.stdout).toContain("Calling echo.");
        expect(result.stdout).toContain("Echoed.");
        // biome-ignore lint/suspicious/noControlCharactersInRegex: taking out our own styling
        const plain = result.stdout.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "");
        expect(plain).toMatch(/mcp__s__echo .*held for approval/);
        expect(plain).toMatch(/mcp__s__echo .*allowed \(approval\) → ok/);
        expect(sandbox.received("s", "tools/call")).toHaveLength(1);
        expect(server.requests).toHaveLength(2);
      } finally {
        await server.close();
      }
    },
  );

  test("a held call whose tool changed while waiting needs a new approval; the model sees the new tools", {
    timeout: longTimeout,
  }, async ({ sandbox }) => {
    const mcpServers = { s: sandbox.scriptableServer("s", { wire: true }) };
    const server = await setUpAgent(
      sandbox,
      "openai",
      [toolCallTurn([mcpCall("tc_1", "echo", { message: "x" })]), textTurn("done")],
      { mcpServers },
    );
    try {
      const held = parseSingleJson(
        (await sandbox.run(["run", "echo", "--json"], { env: agentEnv("openai") })).stdout,
      );
      await sandbox.run(["approvals", "approve", String(held.requestId)]);
      // The server now offers one more tool: its identity, and every tool's fingerprint, changed.
      writeAgentConfig(sandbox, "openai", server, {
        mcpServers: { s: sandbox.scriptableServer("s", { wire: true, tools: [{ name: "extra" }] }) },
      });
      const again = await sandbox.run(["resume", String(held.runId), "--json"], { env: agentEnv("openai") });
      expect(again.code, again.stderr).toBe(3);
      const rewaiting = parseSingleJson(again.stdout);
      expect(rewaiting.requestId).not.toBe(held.requestId);
      expect(sandbox.received("s", "tools/call")).toEqual([]);

      await sandbox.run(["approvals", "approve", String(rewaiting.requestId)]);
      const done = await sandbox.run(["resume", String(held.runId), "--json"], { env: agentEnv("openai") });
      expect(done.code, done.stderr).toBe(0);
      expect(server.requests).toHaveLength(2);
      expect(toolsOffered(server, 0)).not.toContain("mcp__s__extra");
      expect(toolsOffered(server, 1)).toContain("mcp__s__extra");
      const resumedEvents = sandbox.auditEvents().filter((event) => event.type === "run_resumed");
      expect(resumedEvents[0]).toMatchObject({ toolSetChanged: true });
    } finally {
      await server.close();
    }
  });

  test("two resume processes racing for one approved run: the held call runs once", {
    timeout: longTimeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(
      sandbox,
      "openai",
      [toolCallTurn([mcpCall("tc_1", "echo", { message: "once" })]), textTurn("done")],
      { mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) } },
    );
    try {
      const held = parseSingleJson(
        (await sandbox.run(["run", "echo", "--json"], { env: agentEnv("openai") })).stdout,
      );
      await sandbox.run(["approvals", "approve", String(held.requestId)]);
      const [first, second] = await Promise.all([
        sandbox.run(["resume", String(held.runId), "--json"], { env: agentEnv("openai") }),
        sandbox.run(["resume", String(held.runId), "--json"], { env: agentEnv("openai") }),
      ]);
      const codes = [first.code, second.code].sort();
      expect(codes, `${first.stderr}\n${second.stderr}`).toEqual([0, 2]);
      const loser = first.code === 2 ? first : second;
      expect(loser.stderr).toMatch(/run_conflict|run_not_resumable/);
      expect(sandbox.received("s", "tools/call")).toHaveLength(1);
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  test("Ctrl-C during a tool call cancels it on the server, saves the run and exits 130", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(
      sandbox,
      "openai",
      [toolCallTurn([mcpCall("tc_1", "slow", { maxMs: 20_000 })]), textTurn("done")],
      {
        policy: { rules: [{ tool: "mcp__s__slow", decision: "allow" }] },
        mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
      },
    );
    try {
      const agent = sandbox.start(["run", "slow", "--json"], { env: agentEnv("openai") });
      // The run asks for no progress (nobody listens to it), so the call's arrival is the sign it runs.
      await waitFor("the slow tool to be called", () => sandbox.received("s", "tools/call").length > 0);
      const tree = processTreeOf(agent.pid);
      agent.child.kill("SIGINT");
      const result = await agent.exited;
      expect(result.code, result.stderr).toBe(130);
      const document = parseSingleJson(result.stdout);
      expect(document).toMatchObject({ status: "cancelled", turns: 1 });
      const [call] = sandbox.received("s", "tools/call");
      const cancelled = sandbox.received("s", "notifications/cancelled");
      expect(cancelled.map((record) => (record.params as { requestId: unknown }).requestId)).toEqual([
        call?.id,
      ]);
      await assertNoProcessesAlive(tree, 3_000);
      const shown = parseSingleJson(
        (await sandbox.run(["runs", "show", String(document.runId), "--json"])).stdout,
      );
      expect(shown).toMatchObject({
        kind: "agent",
        run: { status: "cancelled", pending: [{ status: "queued" }] },
      });
    } finally {
      await server.close();
    }
  });

  test("caps an oversized tool result for the model and keeps it whole in the run", {
    timeout,
  }, async ({ sandbox }) => {
    const big = "z".repeat(120_000);
    const server = await setUpAgent(
      sandbox,
      "openai",
      [toolCallTurn([mcpCall("tc_1", "big", {})]), textTurn("long")],
      {
        policy: { rules: [{ tool: "mcp__s__big", decision: "allow" }] },
        mcpServers: { s: sandbox.scriptableServer("s", { tools: [{ name: "big", result: big }] }) },
      },
    );
    try {
      const result = await sandbox.run(["run", "big", "--json"], { env: agentEnv("openai") });
      expect(result.code, result.stderr).toBe(0);
      const [sent] = toolResultsSent(server, 1);
      expect(sent?.length).toBeLessThanOrEqual(100_000);
      expect(sent).toContain("[output truncated: showing the first");
      const { runId } = parseSingleJson(result.stdout);
      const shown = parseSingleJson(
        (await sandbox.run(["runs", "show", String(runId), "--json"])).stdout,
      ) as {
        run: { calls: { truncated: boolean; bytes: number; observation: { output: unknown } }[] };
      };
      const [call] = shown.run.calls;
      expect(call).toMatchObject({ truncated: true, bytes: 120_000 });
      expect(JSON.stringify(call?.observation.output)).toContain(big);

      const listed = parseSingleJson((await sandbox.run(["runs", "list", "--json"])).stdout) as {
        runs: { runId: string; kind: string; status: string; what: string }[];
      };
      expect(listed.runs).toEqual([
        expect.objectContaining({ runId, kind: "agent", status: "completed", what: "big" }),
      ]);
      const text = await sandbox.run(["runs", "show", String(runId)]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain("completed");
      expect(text.stdout.length).toBeLessThan(20_000);
    } finally {
      await server.close();
    }
  });
});
