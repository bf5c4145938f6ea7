/**
 * The tasks extension against a real stateless 2026-07-28 server over Streamable HTTP on loopback:
 * a call the server runs as a task is polled to completion and answers as a direct call would, a
 * cancelled call reaches the server as `tasks/cancel` and the task ends cancelled, a failed task is
 * the call's `mcp_error`, and a call resumed from its checkpoint follows the same task without being
 * sent again. What the server saw is read from its own records.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServerConnection } from "@agent/mcp-client";
import {
  type LoopbackHttpServer,
  readRecordFile,
  releaseHeldJobs,
  startLoopbackHttpServer,
  statelessServerPath,
} from "@agent/mcp-testing/servers";
import { createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { createPolicyGate, definePolicy, InMemoryApprovalStore } from "@agent/policy";
import {
  type AgentEvent,
  createMemoryEventSink,
  type EventSink,
  executeToolCall,
  type JsonValue,
  type SuccessObservation,
  ToolRegistry,
} from "@agent/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("tasks on a stateless 2026-07-28 server over Streamable HTTP", () => {
  let server: LoopbackHttpServer | undefined;
  let directory = "";
  let recordFile = "";
  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), "mcp-tasks-"));
    recordFile = join(directory, "records.jsonl");
    server = await startLoopbackHttpServer(statelessServerPath(), [], {
      env: { MCP_TESTING_RECORD_FILE: recordFile },
    });
  });
  afterAll(async () => {
    await server?.kill();
    rmSync(directory, { recursive: true, force: true });
  });

  /** A connection whose event sink also hands each event to `onEvent`. */
  function connect(onEvent: (event: AgentEvent) => void = () => {}) {
    if (!server) throw new Error("The server did not start.");
    const { url } = server;
    const registry = new ToolRegistry();
    const memory = createMemoryEventSink();
    const events: EventSink = {
      emit: (event) => {
        memory.emit(event);
        onEvent(event);
      },
    };
    const connection = new McpServerConnection({
      name: "modern",
      connect: () => createStreamableHttpTransport({ url }),
      registry,
      events,
    });
    const gate = createPolicyGate({
      policy: definePolicy({ defaults: { external: "allow" } }),
      approvals: new InMemoryApprovalStore(),
      events,
    });
    const env = { registry, gate, events, runId: "run_tasks", cwd: "/work", timeoutMs: 20_000 };
    return { connection, env, memory };
  }

  const tasksOf = (memory: { events: AgentEvent[] }) =>
    memory.events.filter((event) => event.type === "mcp_task").map(({ at: _at, ...event }) => event);
  const receivedFor = (taskId: string, method: string) =>
    readRecordFile(recordFile).filter(
      (record) => record.event === "received" && record.method === method && record.taskId === taskId,
    );
  const callsOf = (label: string) =>
    readRecordFile(recordFile).filter((record) => record.event === "task_created" && record.label === label);

  it("polls a task to completion; the result is the tool's, and the trail shows each state", async () => {
    const { connection, env, memory } = connect();
    await connection.start();
    const outcome = await executeToolCall(
      { name: "mcp__modern__job", input: { label: "complete", steps: 2 }, callId: "c1" },
      env,
    );
    expect(outcome).toMatchObject({ ok: true });
    const output = (outcome as SuccessObservation).output as { content: { text: string }[] };
    expect(JSON.parse(output.content[0]?.text ?? "")).toEqual({ job: "complete", finished: true });
    const [created] = callsOf("complete");
    const taskId = String(created?.taskId);
    expect(receivedFor(taskId, "tasks/get").length).toBe(3);
    expect(tasksOf(memory)).toEqual([
      expect.objectContaining({
        step: "created",
        status: "working",
        taskId,
        callId: "c1",
        server: "modern",
        toolName: "mcp__modern__job",
      }),
      expect.objectContaining({ step: "status", status: "completed", taskId }),
    ]);
    await connection.close();
  });

  it("sends tasks/cancel when the call is cancelled: the server's task ends cancelled", async () => {
    const controller = new AbortController();
    const { connection, env, memory } = connect((event) => {
      if (event.type === "mcp_task" && event.step === "created") controller.abort();
    });
    await connection.start();
    const outcome = await executeToolCall(
      { name: "mcp__modern__job", input: { label: "cancel", hold: true } },
      { ...env, signal: controller.signal },
    );
    expect(outcome).toMatchObject({ ok: false, error: "cancelled" });
    const taskId = String(callsOf("cancel")[0]?.taskId);
    // The executor answers at once; the cancellation reaches the server right after.
    await expect.poll(() => receivedFor(taskId, "tasks/cancel").length).toBe(1);
    expect(readRecordFile(recordFile)).toContainEqual(
      expect.objectContaining({ event: "task_ended", taskId, status: "cancelled" }),
    );
    await expect.poll(() => tasksOf(memory).at(-1)).toMatchObject({ step: "cancel_sent", ok: true, taskId });
    await connection.close();
  });

  it("a failed task is the call's mcp_error with the server's code", async () => {
    const { connection, env } = connect();
    await connection.start();
    const outcome = await executeToolCall(
      { name: "mcp__modern__job", input: { label: "fail", steps: 0, outcome: "failed" } },
      env,
    );
    expect(outcome).toMatchObject({
      ok: false,
      error: "mcp_error",
      message: expect.stringContaining("(-32603): the job's worker crashed"),
    });
    await connection.close();
  });

  it("a tool error inside a completed task is the call's mcp_tool_error", async () => {
    const { connection, env } = connect();
    await connection.start();
    const outcome = await executeToolCall(
      { name: "mcp__modern__job", input: { label: "tool-error", steps: 0, outcome: "tool_error" } },
      env,
    );
    expect(outcome).toMatchObject({ ok: false, error: "mcp_tool_error" });
    await connection.close();
  });

  it("a call resumed from its checkpoint follows the same task and is never sent again", async () => {
    const checkpoints: JsonValue[] = [];
    const first = connect();
    await first.connection.start();
    const stopped = new AbortController();
    // The first process stops once its checkpoint is saved: its call is abandoned, the task goes on.
    const abandoned = executeToolCall(
      {
        name: "mcp__modern__job",
        input: { label: "resume", hold: true },
        callId: "c_resume",
        checkpoint: (state) => {
          checkpoints.push(state);
        },
      },
      { ...first.env, signal: stopped.signal },
    );
    await expect.poll(() => checkpoints.length).toBe(1);
    const taskId = String(callsOf("resume")[0]?.taskId);
    expect(checkpoints[0]).toEqual({ mcpTask: { server: "modern", taskId } });
    // A connection of its own dies with its process without a word to the server: closing it is that.
    await first.connection.close();
    stopped.abort();
    await abandoned;
    // (Closing sent nothing about the task: it is still working.)
    expect(receivedFor(taskId, "tasks/cancel")).toEqual([]);

    await releaseHeldJobs(String(server?.url));
    const second = connect();
    await second.connection.start();
    const resumed = await executeToolCall(
      {
        name: "mcp__modern__job",
        input: { label: "resume", hold: true },
        callId: "c_resume",
        resume: checkpoints[0] as JsonValue,
      },
      second.env,
    );
    expect(resumed).toMatchObject({ ok: true });
    expect(callsOf("resume")).toHaveLength(1);
    const types = second.memory.events.map((event) => event.type);
    expect(types).toContain("tool_call_resumed");
    expect(types).not.toContain("tool_call_decided");
    expect(tasksOf(second.memory)).toEqual([
      expect.objectContaining({ step: "resumed", taskId }),
      // The new process has seen no status yet: the first it reads is a change.
      expect.objectContaining({ step: "status", status: "working", taskId }),
      expect.objectContaining({ step: "status", status: "completed", taskId }),
    ]);
    await second.connection.close();
  });
});
