import { setTimeout as sleep } from "node:timers/promises";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import { createFakeModelServer } from "@agent/models/testing/server";
import { startThrowawayCluster, type ThrowawayCluster } from "@agent/store-postgres/testing";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { agentEnv, mcpCall } from "./e2e-agent-helpers.js";
import {
  type AgentResult,
  E2E_TIMEOUT_MS,
  type E2eSandbox,
  e2eTest,
  parseSingleJson,
  waitFor,
} from "./e2e-helpers.js";

// One throwaway PostgreSQL server for this file (these tests restart it); each test gets a database.
let cluster: ThrowawayCluster;
let databases = 0;
beforeAll(async () => {
  cluster = await startThrowawayCluster();
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

const provider = "openai";

/**
 * An agent run on a PostgreSQL state whose model calls the allowed `slow` tool of server `s` once,
 * then ends; the URL reaches the CLI only through a variable, as a team would configure it.
 */
async function agentOnPostgres(sandbox: E2eSandbox, maxMs: number) {
  databases += 1;
  const url = await cluster.createDatabase(`agent_${process.pid}_${databases}`);
  const model = await createFakeModelServer([
    toolCallTurn([mcpCall("tc_1", "slow", { maxMs })]),
    textTurn("done after the slow call"),
  ]);
  sandbox.writeConfig({
    model: { provider, name: "fake-model", baseUrl: model.openAiBaseUrl },
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a ${VAR} reference the CLI expands.
    state: { url: "${AGENT_STATE_URL}" },
    policy: { rules: [{ tool: "mcp__s__slow", decision: "allow" }] },
    mcpServers: { s: sandbox.scriptableServer("s", { wire: true }) },
  });
  const env = { ...agentEnv(provider), AGENT_STATE_URL: url };
  return {
    model,
    run: (args: string[]) => sandbox.run(args, { env }),
    // Long enough for a command to give up on a database that is gone (about ten seconds per save).
    start: (args: string[]) => sandbox.start(args, { env, limitMs: 40_000 }),
    executions: () => sandbox.received("s", "tools/call").length,
    /** The id of the run started last, read from the state (a run that failed may print none). */
    async newestRunId(): Promise<string> {
      const listed = await sandbox.run(["runs", "list", "--json"], { env });
      const [newest] = (JSON.parse(listed.stdout) as { runs: { runId: string }[] }).runs;
      return String(newest?.runId);
    },
  };
}

describe("an agent run on PostgreSQL when the database restarts", () => {
  e2eTest(
    "a restart while an allowed call runs: the outcome is saved once the database is back, and nothing runs twice",
    async ({ sandbox }) => {
      const { model, run, start, executions, newestRunId } = await agentOnPostgres(sandbox, 1_000);
      try {
        const running = start(["run", "call slow", "--json"]);
        await waitFor("the call to reach the server", () => executions() === 1).catch((error: unknown) => {
          throw new Error(`${(error as Error).message}\n${running.stderr()}`);
        });
        // Down until the call has ended: its result is saved while the database is gone.
        await cluster.restart(() => sleep(2_500));
        const finished = await running.exited;
        const runId = await newestRunId();

        // Resuming it (its process is gone) never runs the call a second time.
        await run(["resume", runId, "--json"]);
        expect(executions()).toBe(1);
        // Nor did it need to: the outcome was saved once the database was back, and the run completed.
        expect(finished.stdout + finished.stderr).not.toMatch(/nothing was lost/);
        expect(finished.code, finished.stderr).toBe(0);
        expect(parseSingleJson(finished.stdout)).toMatchObject({
          runId,
          status: "completed",
          output: "done after the slow call",
        });
      } finally {
        await model.close();
      }
    },
    E2E_TIMEOUT_MS * 2,
  );

  e2eTest(
    "a database gone for longer than the retries: the call is held as outcome_unknown, never run again until decided",
    async ({ sandbox }) => {
      const { model, run, start, executions, newestRunId } = await agentOnPostgres(sandbox, 500);
      try {
        const running = start(["run", "call slow", "--json"]);
        await waitFor("the call to reach the server", () => executions() === 1);
        // Down until the command gives up on it (its retries last about ten seconds per save).
        let lost: AgentResult | undefined;
        await cluster.restart(async () => {
          lost = await running.exited;
        });
        if (!lost) throw new Error("the agent run did not end while the database was down");
        // The command gave up on the database: it says what may be lost, and how to decide.
        expect(lost.code).toBe(1);
        expect(lost.stderr).not.toMatch(/nothing was lost/);
        expect(lost.stderr).toMatch(/run_not_saved/);
        expect(lost.stderr).toMatch(/may have run/);
        expect(lost.stderr).toMatch(/--rerun/);

        const runId = await newestRunId();
        // Its process is gone: a resume takes it over, and holds the call instead of running it again.
        const held = await run(["resume", runId, "--json"]);
        expect(held.code, held.stderr).toBe(1);
        const document = parseSingleJson(held.stdout);
        expect(document).toMatchObject({ status: "failed", error: { code: "call_outcome_unknown" } });
        const [unknown] = document.outcomeUnknown as { callId: string; toolName: string }[];
        expect(unknown).toMatchObject({ toolName: "mcp__s__slow" });
        const shown = await run(["runs", "show", runId]);
        expect(shown.stdout).toContain(`outcome unknown: call ${unknown?.callId} may have run`);
        expect(executions()).toBe(1);

        // The operator tells the model the outcome is unknown: nothing runs, and the run goes on.
        const decided = await run(["resume", runId, "--answer-unknown", String(unknown?.callId), "--json"]);
        expect(decided.code, decided.stderr).toBe(0);
        expect(parseSingleJson(decided.stdout)).toMatchObject({ status: "completed" });
        expect(executions()).toBe(1);
      } finally {
        await model.close();
      }
    },
    E2E_TIMEOUT_MS * 3,
  );
});
