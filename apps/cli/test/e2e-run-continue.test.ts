import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import type { FakeModelServer } from "@agent/models/testing/server";
import { describe, expect } from "vitest";
import { agentEnv, setUpAgent } from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test } from "./e2e-helpers.js";

const timeout = E2E_TIMEOUT_MS;
const provider = "openai";

/** The user and assistant texts of model request `index`, in order, as the model received them. */
function conversationSent(server: FakeModelServer, index: number): string[] {
  const body = server.requests[index]?.body as { messages?: { role: string; content?: unknown }[] };
  return (body.messages ?? [])
    .filter((message) => message.role === "user" || message.role === "assistant")
    .map((message) => `${message.role}: ${typeof message.content === "string" ? message.content : ""}`);
}

describe("agent run --continue", () => {
  test("adds a prompt to a completed run: the model gets the first exchange, the same run record goes on", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(
      sandbox,
      provider,
      [
        textTurn("Paris."),
        toolCallTurn([{ id: "tc_w", name: "write_file", input: { path: "note.txt", content: "two" } }]),
        textTurn("Written."),
      ],
      { policy: { rules: [{ tool: "write_file", decision: "allow" }] } },
    );
    try {
      const first = await sandbox.run(["run", "capital of France?", "--json"], { env: agentEnv(provider) });
      expect(first.code, first.stderr).toBe(0);
      const { runId } = parseSingleJson(first.stdout) as { runId: string };

      const next = await sandbox.run(["run", "--continue", runId, "write it down", "--json"], {
        env: agentEnv(provider),
      });
      expect(next.code, next.stderr).toBe(0);
      expect(parseSingleJson(next.stdout)).toMatchObject({
        runId,
        status: "completed",
        output: "Written.",
        turns: 3,
      });
      expect(conversationSent(server, 1)).toEqual([
        "user: capital of France?",
        "assistant: Paris.",
        "user: write it down",
      ]);
      expect(readFileSync(join(sandbox.workspace, "note.txt"), "utf8")).toBe("two");

      const shown = await sandbox.run(["runs", "show", runId, "--json"]);
      const run = parseSingleJson(shown.stdout) as { run?: { messages?: unknown[] }; messages?: unknown[] };
      const messages = run.run?.messages ?? run.messages ?? [];
      expect(messages.length).toBe(6);
      const listed = await sandbox.run(["runs", "list", "--json"]);
      expect((parseSingleJson(listed.stdout) as { runs: unknown[] }).runs).toHaveLength(1);
      expect(sandbox.auditEvents().filter((event) => event.type === "run_continued")).toEqual([
        expect.objectContaining({ runId, turn: 1, promptChars: "write it down".length }),
      ]);
    } finally {
      await server.close();
    }
  });

  test("refuses a waiting run and an unknown id with exit 2, asking no model; decided and resumed, it continues", {
    timeout,
  }, async ({ sandbox }) => {
    const server = await setUpAgent(sandbox, provider, [
      toolCallTurn([{ id: "tc_w", name: "write_file", input: { path: "held.txt", content: "x" } }]),
      textTurn("Written."),
      textTurn("And more."),
    ]);
    try {
      const held = await sandbox.run(["run", "write", "--json"], { env: agentEnv(provider) });
      expect(held.code, held.stderr).toBe(3);
      const { runId, requestId } = parseSingleJson(held.stdout) as { runId: string; requestId: string };

      const refused = await sandbox.run(["run", "--continue", runId, "and more"], {
        env: agentEnv(provider),
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`agent approvals approve ${requestId}`);
      expect(refused.stderr).toContain(`agent resume ${runId}`);
      expect(refused.stdout).toBe("");

      const unknown = await sandbox.run(["run", "--continue", "run_nope", "hello"], {
        env: agentEnv(provider),
      });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('No agent run "run_nope"');

      const noPrompt = await sandbox.run(["run", "--continue", runId], { env: agentEnv(provider) });
      expect(noPrompt.code).toBe(2);
      expect(noPrompt.stderr).toContain("takes <prompt>");

      expect(server.requests).toHaveLength(1);
      expect(existsSync(join(sandbox.workspace, "held.txt"))).toBe(false);
      const shown = await sandbox.run(["runs", "show", runId, "--json"]);
      expect(shown.stdout).toContain('"waiting"');

      // As the refusal says: decided and resumed, the run takes the new prompt.
      expect((await sandbox.run(["approvals", "approve", requestId])).code).toBe(0);
      const resumed = await sandbox.run(["resume", runId, "--json"], { env: agentEnv(provider) });
      expect(parseSingleJson(resumed.stdout)).toMatchObject({ status: "completed" });
      const continued = await sandbox.run(["run", "--continue", runId, "and more", "--json"], {
        env: agentEnv(provider),
      });
      expect(parseSingleJson(continued.stdout)).toMatchObject({
        runId,
        status: "completed",
        output: "And more.",
      });
      expect(readFileSync(join(sandbox.workspace, "held.txt"), "utf8")).toBe("x");
    } finally {
      await server.close();
    }
  });
});
