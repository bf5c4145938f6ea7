import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import { type FakeModelServer, hangReply } from "@agent/models/testing/server";
import { describe, expect } from "vitest";
import { agentEnv, setUpAgent } from "./e2e-agent-helpers.js";
import {
  CAN_RUN_IN_TERMINAL,
  E2E_TIMEOUT_MS,
  type RunningAgent,
  e2eTest as test,
  waitFor,
} from "./e2e-helpers.js";

const timeout = E2E_TIMEOUT_MS;
const provider = "openai";
const PROMPT = "› ";

/** The user and assistant texts of model request `index`, in order, as the model received them. */
function conversationSent(server: FakeModelServer, index: number): string[] {
  const body = server.requests[index]?.body as { messages?: { role: string; content?: unknown }[] };
  return (body.messages ?? [])
    .filter((message) => message.role === "user" || message.role === "assistant")
    .map((message) => `${message.role}: ${typeof message.content === "string" ? message.content : ""}`);
}

/** The names of the tools model request `index` offered, sorted. */
function toolsOffered(server: FakeModelServer, index: number): string[] {
  const body = server.requests[index]?.body as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((tool) => tool.function.name).sort();
}

/** How many times the chat's prompt was shown so far (the terminal shows it all on one stream). */
function promptsShown(agent: RunningAgent): number {
  return agent.stdout().split(PROMPT).length - 1;
}

/** Types a line once the chat shows its `count`-th prompt. */
async function typeAtPrompt(agent: RunningAgent, count: number, line: string): Promise<void> {
  await waitFor(`prompt ${count}`, () => promptsShown(agent) >= count);
  agent.child.stdin?.write(`${line}\r`);
}

describe.skipIf(!CAN_RUN_IN_TERMINAL)("agent chat in a terminal", () => {
  test("a follow-up continues the same run, a held call is approved inline and runs once, /quit leaves", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(
      sandbox,
      provider,
      [
        textTurn("Hello there."),
        toolCallTurn([{ id: "tc_w", name: "write_file", input: { path: "chat.txt", content: "from chat" } }]),
        textTurn("Saved it."),
      ],
      { mcpServers: { s: sandbox.scriptableServer("s") } },
    );
    try {
      const agent = sandbox.start(["chat"], { terminal: true, stdin: true, env: agentEnv(provider) });
      await typeAtPrompt(agent, 1, "hi");
      await waitFor("the first answer", () => agent.stdout().includes("Hello there."));
      await typeAtPrompt(agent, 2, "save a note");
      await waitFor("the approval prompt", () => agent.stdout().includes("Approve this exact call once?"));
      expect(agent.stdout()).toContain("write_file (write)");
      agent.child.stdin?.write("y\r");
      await waitFor("the answer after the call", () => agent.stdout().includes("Saved it."));
      await typeAtPrompt(agent, 3, "/runs");
      await typeAtPrompt(agent, 4, "/quit");
      const left = await agent.exited;
      expect(left.code, left.stdout).toBe(0);
      // Gone, and so is the MCP server it started (the sandbox's cleanup fails the test otherwise).
      expect(() => process.kill(agent.pid, 0)).toThrow();
      expect(sandbox.records("s").some((record) => record.event === "started")).toBe(true);

      // The follow-up's request carried the first exchange: one conversation, one run.
      expect(conversationSent(server, 1)).toEqual([
        "user: hi",
        "assistant: Hello there.",
        "user: save a note",
      ]);
      expect(readFileSync(join(sandbox.workspace, "chat.txt"), "utf8")).toBe("from chat");
      const events = sandbox.auditEvents();
      const finished = events.filter(
        (event) => event.type === "tool_call_finished" && event.toolName === "write_file",
      );
      expect(finished.filter((event) => event.ok === true)).toHaveLength(1);
      const runIds = new Set(
        events.filter((event) => event.type === "run_started").map((event) => event.runId),
      );
      expect(runIds.size).toBe(1);
      expect(events.filter((event) => event.type === "run_continued")).toHaveLength(1);
      expect(events.filter((event) => event.type === "approval_granted")).toHaveLength(1);
      // /runs printed the CLI's own list, with the chat's one run in it.
      const [runId] = [...runIds];
      expect(left.stdout).toContain(String(runId));
      expect(left.stdout).toContain("PROMPT / TOOL");
      // Leaving says how a script goes on with the same run.
      expect(left.stdout).toContain(`go on with: agent run --continue ${String(runId)}`);
    } finally {
      await server.close();
    }
  });

  test("Ctrl-C cancels the turn that runs and the chat goes on; Ctrl-D leaves", { timeout }, async ({
    sandbox,
  }) => {
    const server = await setUpAgent(sandbox, provider, [hangReply(), textTurn("After the cancel.")]);
    try {
      const agent = sandbox.start(["chat"], { terminal: true, stdin: true, env: agentEnv(provider) });
      await typeAtPrompt(agent, 1, "think forever");
      await waitFor("the model request", () => server.requests.length === 1);
      agent.child.stdin?.write("\u0003");
      await waitFor("the cancelled turn", () => agent.stdout().includes("Turn cancelled."));
      await typeAtPrompt(agent, 2, "try again");
      await waitFor("the answer", () => agent.stdout().includes("After the cancel."));
      await waitFor("prompt 3", () => promptsShown(agent) >= 3);
      agent.child.stdin?.write("\u0004");
      const left = await agent.exited;
      expect(left.code, left.stdout).toBe(0);
      // The same run went on after the cancel: the second request holds both prompts.
      expect(conversationSent(server, 1)).toEqual(["user: think forever", "user: try again"]);
      const finishedRuns = sandbox.auditEvents().filter((event) => event.type === "run_finished");
      expect(finishedRuns.map((event) => event.status)).toEqual(["cancelled", "completed"]);
    } finally {
      await server.close();
    }
  });

  test("/tools and the model's next turns follow the policy the chat reloaded: the file's edited rules and the rule 'always allow' wrote", {
    timeout,
  }, async ({ sandbox }) => {
    const write = toolCallTurn([
      { id: "tc_w", name: "write_file", input: { path: "kept.txt", content: "kept" } },
    ]);
    const server = await setUpAgent(sandbox, provider, [write, textTurn("Saved it."), textTurn("Next.")], {
      mcpServers: { s: sandbox.scriptableServer("s") },
      policy: {
        rules: [
          { tool: "mcp__s__echo", decision: "allow" },
          { tool: "list_directory", decision: "deny" },
        ],
      },
    });
    try {
      const agent = sandbox.start(["chat"], { terminal: true, stdin: true, env: agentEnv(provider) });
      await waitFor("prompt 1", () => promptsShown(agent) >= 1);
      // Edited by hand while the chat runs: the chat decides by its startup policy until it reloads.
      // The edit denies a tool the model was offered and drops the deny of one it was not.
      const config = JSON.parse(readFileSync(sandbox.configPath, "utf8")) as {
        policy: { rules: { tool: string; decision: string }[] };
      };
      config.policy.rules = [{ tool: "mcp__s__echo", decision: "deny" }];
      writeFileSync(sandbox.configPath, JSON.stringify(config, null, 2));
      await typeAtPrompt(agent, 1, "save a note");
      await waitFor("the approval prompt", () => agent.stdout().includes("a: always allow this tool"));
      agent.child.stdin?.write("a\r");
      await waitFor("the confirmation", () => agent.stdout().includes("Write this rule to"));
      agent.child.stdin?.write("y\r");
      await waitFor("the answer after the call", () => agent.stdout().includes("Saved it."));
      const beforeListing = agent.stdout().length;
      await typeAtPrompt(agent, 2, "/tools");
      await typeAtPrompt(agent, 3, "and now?");
      await waitFor("the next answer", () => agent.stdout().includes("Next."));
      await typeAtPrompt(agent, 4, "/quit");
      const left = await agent.exited;
      expect(left.code, left.stdout).toBe(0);
      expect(readFileSync(join(sandbox.workspace, "kept.txt"), "utf8")).toBe("kept");
      // The table's POLICY column, as the gate decides after the reload (at startup: ask, allow, deny).
      const listing = left.stdout.slice(beforeListing);
      expect(listing).toMatch(/\bwrite_file +write +\S+ +allow\b/);
      expect(listing).toMatch(/\bmcp__s__echo +external +\S+ +deny\b/);
      expect(listing).toMatch(/\blist_directory +read +\S+ +allow\b/);
      // The model is offered what the gate would let run: echo and not list_directory at first, the
      // other way round once the reload decides (the same run's next turn, and the next prompt's).
      expect(server.requests).toHaveLength(3);
      expect(toolsOffered(server, 0)).toContain("mcp__s__echo");
      expect(toolsOffered(server, 0)).not.toContain("list_directory");
      for (const index of [1, 2]) {
        expect(toolsOffered(server, index)).toContain("write_file");
        expect(toolsOffered(server, index)).toContain("list_directory");
        expect(toolsOffered(server, index)).not.toContain("mcp__s__echo");
      }
    } finally {
      await server.close();
    }
  });

  test("Ctrl-C at the prompt leaves the chat, asking the model nothing", { timeout }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [textTurn("never")]);
    try {
      const agent = sandbox.start(["chat"], { terminal: true, stdin: true, env: agentEnv(provider) });
      await waitFor("prompt 1", () => promptsShown(agent) >= 1);
      agent.child.stdin?.write("half a line\u0003");
      const left = await agent.exited;
      expect(left.code, left.stdout).toBe(0);
      expect(server.requests).toHaveLength(0);
      expect(sandbox.auditEvents().filter((event) => event.type === "run_started")).toHaveLength(0);
    } finally {
      await server.close();
    }
  });
});

describe("agent chat without a terminal", () => {
  test("reads prompts line by line from a pipe, prints plain text (no escape codes), and leaves at the end of input", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [textTurn("First."), textTurn("Second.")]);
    try {
      const agent = sandbox.start(["chat"], { stdin: true, env: agentEnv(provider) });
      // All at once: none of the lines may be lost between turns.
      agent.child.stdin?.end("one\ntwo\n/model\n");
      const left = await agent.exited;
      expect(left.code, left.stderr).toBe(0);
      expect(left.stdout).toBe("First.\nSecond.\n");
      expect(left.stderr).toContain("model  openai fake-model");
      expect(left.stderr).toMatch(/used +\S+ tokens/);
      expect(`${left.stdout}${left.stderr}`).not.toContain("\u001b");
      expect(left.stderr).not.toContain("›");
      expect(conversationSent(server, 1)).toEqual(["user: one", "assistant: First.", "user: two"]);
    } finally {
      await server.close();
    }
  });

  test("a call held in a piped chat is approved from another shell: the next prompt runs it once, then goes on", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [
      toolCallTurn([{ id: "tc_w", name: "write_file", input: { path: "piped.txt", content: "approved" } }]),
      textTurn("Saved."),
      textTurn("Going on."),
    ]);
    try {
      const agent = sandbox.start(["chat"], { stdin: true, env: agentEnv(provider) });
      agent.child.stdin?.write("save it\n");
      const requestId = await waitFor(
        "the held call",
        () => /Held for approval: (apr_\S+?)\./.exec(agent.stderr())?.[1],
      );
      expect((await sandbox.run(["approvals", "approve", requestId])).code).toBe(0);
      agent.child.stdin?.end("and then?\n");
      const left = await agent.exited;
      expect(left.code, left.stderr).toBe(0);
      expect(left.stdout).toBe("Saved.\nGoing on.\n");
      expect(readFileSync(join(sandbox.workspace, "piped.txt"), "utf8")).toBe("approved");
      const runs = sandbox
        .auditEvents()
        .filter((event) => event.type === "tool_call_finished" && event.ok === true);
      expect(runs).toHaveLength(1);
      // The follow-up came after the approved call's turn, in the same conversation.
      const sent = conversationSent(server, 2);
      expect(sent[0]).toBe("user: save it");
      expect(sent.slice(-2)).toEqual(["assistant: Saved.", "user: and then?"]);
    } finally {
      await server.close();
    }
  });

  test("slash commands run the CLI's own commands on the chat's run", { timeout }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [textTurn("Hi.")], {
      mcpServers: { s: sandbox.scriptableServer("s") },
    });
    try {
      const agent = sandbox.start(["chat"], { stdin: true, env: agentEnv(provider) });
      agent.child.stdin?.end(
        "/audit\nhello\n/help\n/tools\n/approvals\n/audit\n/model\n/bogus\n/quit\nnever sent\n",
      );
      const left = await agent.exited;
      expect(left.code, left.stderr).toBe(0);
      expect(left.stderr).toContain("No run yet");
      for (const command of ["/tools", "/approvals", "/runs", "/audit", "/model", "/help", "/quit"]) {
        expect(left.stderr).toContain(`  ${command}`);
      }
      // /tools: the tools table, as "agent tools" prints it.
      expect(left.stdout).toMatch(/mcp__s__echo/);
      expect(left.stdout).toContain("No approval requests");
      // /audit: the story of this chat's run.
      expect(left.stdout).toMatch(/prompt: run run_\S+ started on openai fake-model/);
      expect(left.stdout).toMatch(/run run_\S+ stopped: completed after 1 turns/);
      expect(left.stderr).toContain('Unknown command "/bogus"');
      // /quit left before the last line: one model request, for "hello".
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
