import { join } from "node:path";
import {
  readRecordFile,
  releaseHeldJobs,
  startLoopbackHttpServer,
  statelessServerPath,
} from "@agent/mcp-testing/servers";
import { textTurn, toolCallTurn } from "@agent/models/testing";
import { describe, expect } from "vitest";
import { agentEnv, setUpAgent, toolResultsSent } from "./e2e-agent-helpers.js";
import { E2E_TIMEOUT_MS, parseSingleJson, e2eTest as test, waitFor } from "./e2e-helpers.js";

// Two CLI processes one after the other, and a wait for the first to reach the server.
const timeout = E2E_TIMEOUT_MS * 3;

describe("a tool call the server runs as a task (tasks extension, 2026-07-28)", () => {
  test("outlives the CLI process: killed while the task works, `agent resume` follows the same task to its result", {
    timeout,
  }, async ({ sandbox, onTestFinished }) => {
    const recordFile = join(sandbox.root, "stateless-records.jsonl");
    const http = await startLoopbackHttpServer(statelessServerPath(), [], {
      env: { MCP_TESTING_RECORD_FILE: recordFile },
    });
    onTestFinished(() => http.kill());
    const model = await setUpAgent(
      sandbox,
      "openai",
      [
        toolCallTurn([{ id: "tc_1", name: "mcp__modern__job", input: { label: "durable", hold: true } }]),
        textTurn("the job is done"),
      ],
      {
        mcpServers: { modern: { type: "http", url: http.url } },
        policy: { rules: [{ tool: "mcp__modern__job", decision: "allow" }] },
      },
    );
    onTestFinished(() => model.close());
    const records = () => readRecordFile(recordFile);
    const received = (method: string) =>
      records().filter((record) => record.event === "received" && record.method === method);

    const first = sandbox.start(["run", "run the job", "--json"], { env: agentEnv("openai") });
    // The first poll is sent only once the task's id is saved with the run.
    await waitFor("the first process to poll its task", () => received("tasks/get").length > 0);
    first.child.kill("SIGKILL");
    const killed = await first.exited;
    expect(killed.signal).toBe("SIGKILL");
    const [created] = records().filter((record) => record.event === "task_created");
    const taskId = String(created?.taskId);

    const listed = parseSingleJson((await sandbox.run(["runs", "list", "--json"])).stdout) as {
      runs: { runId: string; status: string }[];
    };
    expect(listed.runs).toEqual([expect.objectContaining({ status: "running" })]);
    const runId = String(listed.runs[0]?.runId);
    const shown = parseSingleJson((await sandbox.run(["runs", "show", runId, "--json"])).stdout);
    expect(shown).toMatchObject({
      run: { pending: [{ status: "queued", checkpoint: { mcpTask: { server: "modern", taskId } } }] },
    });

    await releaseHeldJobs(http.url);
    const resumed = await sandbox.run(["resume", runId, "--json"], { env: agentEnv("openai") });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseSingleJson(resumed.stdout)).toMatchObject({
      runId,
      status: "completed",
      output: "the job is done",
    });
    // One tools/call in all: the second process followed the task it found in the run.
    expect(received("tools/call").filter((record) => record.tool === "job")).toHaveLength(1);
    expect(received("tasks/cancel")).toEqual([]);
    expect(received("tasks/get").every((record) => record.taskId === taskId)).toBe(true);
    expect(toolResultsSent(model, 1)).toEqual(['{"job":"durable","finished":true}']);
    const trail = sandbox.auditEvents();
    expect(trail.filter((event) => event.type === "tool_call_resumed")).toEqual([
      expect.objectContaining({ runId, toolName: "mcp__modern__job" }),
    ]);
    // Decided once, by the first process; the second did not ask again.
    expect(trail.filter((event) => event.type === "tool_call_decided")).toHaveLength(1);
    expect(
      trail.filter((event) => event.type === "mcp_task").map((event) => [event.step, event.status]),
    ).toEqual(
      expect.arrayContaining([
        ["resumed", undefined],
        ["status", "completed"],
      ]),
    );
  });
});
