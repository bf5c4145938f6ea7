/**
 * The tasks extension behind the transport port (2026-07-28): a `tools/call` answered with a task is
 * followed with `tasks/get` to the result it inlines, input goes back with `tasks/update`, an abort or
 * a timeout sends `tasks/cancel`, a resumed call sends no `tools/call` at all, and nothing the server
 * sends about its task is trusted.
 */
import { describe, expect, it } from "vitest";
import { TASK_LIMITS } from "../src/era/task-result.js";
import {
  MCP_ERROR_CODES,
  type McpRequestContext,
  type McpRequestHandler,
  type McpResponse,
  type McpTaskEvent,
  type McpTransport,
} from "../src/transport.js";
import { connectScripted, type Script, type Sent, withoutMeta } from "./scripted-era-server.js";

function created(extra: Record<string, unknown> = {}): McpResponse {
  return {
    ok: true,
    result: {
      resultType: "task",
      taskId: "task-1",
      status: "working",
      ttlMs: 60_000,
      pollIntervalMs: 10,
      ...extra,
    },
  };
}

function task(status: string, extra: Record<string, unknown> = {}): McpResponse {
  return {
    ok: true,
    result: { resultType: "complete", taskId: "task-1", status, pollIntervalMs: 10, ...extra },
  };
}

const RESULT = { content: [{ type: "text", text: "42" }] };

/** A stateless server (or, with `handshake`, an old one) answering from its script; the last answer repeats. */
function connect(script: Script, handlers: Record<string, McpRequestHandler> = {}, handshake = false) {
  return connectScripted(
    script,
    { answers: "repeat-last", unscripted: { ok: true, result: { resultType: "complete" } }, handshake },
    handlers,
  );
}

function call(
  era: McpTransport,
  context: Partial<McpRequestContext> = {},
): { outcome: Promise<McpResponse>; events: McpTaskEvent[] } {
  const events: McpTaskEvent[] = [];
  const outcome = era.request(
    "tools/call",
    { name: "compute", arguments: {} },
    { signal: new AbortController().signal, onTask: (event) => void events.push(event), ...context },
  );
  return { outcome, events };
}

const methods = (sent: Sent[]): string[] => sent.map((entry) => entry.method);

describe("a tools/call answered with a task", () => {
  it("is polled with tasks/get until it completes, and answers with the result the task inlines", async () => {
    const { era, sent } = await connect({
      "tools/call": [created()],
      "tasks/get": [task("working"), task("working"), task("completed", { result: RESULT })],
    });
    const { outcome, events } = call(era);
    expect(await outcome).toEqual({ ok: true, result: RESULT });
    expect(methods(sent)).toEqual(["tools/call", "tasks/get", "tasks/get", "tasks/get"]);
    expect(withoutMeta(sent[1]?.params ?? {})).toEqual({ taskId: "task-1" });
    // Creation and each change of status, not each poll.
    expect(events).toEqual([
      { kind: "created", taskId: "task-1", status: "working", pollIntervalMs: 10 },
      { kind: "status", taskId: "task-1", status: "completed" },
    ]);
  });

  it("offers the tasks extension in every request's envelope", async () => {
    const { era, sent } = await connect({});
    await call(era).outcome;
    expect(sent[0]?.params._meta).toMatchObject({
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    });
  });

  it("ends with the server's JSON-RPC error when the task failed", async () => {
    const { era } = await connect({
      "tools/call": [created()],
      "tasks/get": [task("failed", { error: { code: -32603, message: "worker crashed" } })],
    });
    expect(await call(era).outcome).toEqual({
      ok: false,
      error: { code: -32603, message: "worker crashed" },
    });
  });

  it("ends cancelled when the server cancelled the task", async () => {
    const { era } = await connect({ "tools/call": [created()], "tasks/get": [task("cancelled")] });
    const outcome = await call(era).outcome;
    expect(outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
  });

  it("sends tasks/cancel when the caller aborts while the task works, and ends cancelled", async () => {
    const { era, sent } = await connect({ "tools/call": [created()], "tasks/get": [task("working")] });
    const controller = new AbortController();
    const events: McpTaskEvent[] = [];
    const outcome = await era.request(
      "tools/call",
      { name: "compute", arguments: {} },
      {
        signal: controller.signal,
        onTask: (event) => {
          events.push(event);
          if (event.kind === "created") controller.abort();
        },
      },
    );
    expect(outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    expect(methods(sent)).toEqual(["tools/call", "tasks/cancel"]);
    expect(withoutMeta(sent[1]?.params ?? {})).toEqual({ taskId: "task-1" });
    expect(events.at(-1)).toEqual({ kind: "cancel_sent", taskId: "task-1", ok: true });
  });

  it("sends tasks/cancel when the call's time runs out, and ends timed out", async () => {
    const { era, sent } = await connect({ "tools/call": [created()], "tasks/get": [task("working")] });
    const outcome = await call(era, { timeoutMs: 40 }).outcome;
    expect(outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.timeout } });
    expect(methods(sent).at(-1)).toBe("tasks/cancel");
  });

  it("answers input_required through the client's handlers and sends the answers with tasks/update", async () => {
    const asked: unknown[] = [];
    const inputRequests = {
      confirm: {
        method: "elicitation/create",
        params: { message: "Delete?", requestedSchema: { type: "object" } },
      },
    };
    const { era, sent } = await connect(
      {
        "tools/call": [created()],
        "tasks/get": [task("input_required", { inputRequests }), task("completed", { result: RESULT })],
        "tasks/update": [{ ok: true, result: { resultType: "complete" } }],
      },
      {
        "elicitation/create": async (params) => {
          asked.push(params);
          return { ok: true, result: { action: "accept", content: { confirm: true } } };
        },
      },
    );
    expect(await call(era).outcome).toEqual({ ok: true, result: RESULT });
    expect(asked).toEqual([inputRequests.confirm.params]);
    expect(methods(sent)).toEqual(["tools/call", "tasks/get", "tasks/update", "tasks/get"]);
    expect(withoutMeta(sent[2]?.params ?? {})).toEqual({
      taskId: "task-1",
      inputResponses: { confirm: { action: "accept", content: { confirm: true } } },
    });
  });

  it("resumes a task by its id without sending the call again", async () => {
    const { era, sent } = await connect({ "tasks/get": [task("completed", { result: RESULT })] });
    const { outcome, events } = call(era, { resumeTaskId: "task-1" });
    expect(await outcome).toEqual({ ok: true, result: RESULT });
    expect(methods(sent)).toEqual(["tasks/get"]);
    expect(events).toEqual([{ kind: "status", taskId: "task-1", status: "completed" }]);
  });

  it("refuses to resume a task on a server that speaks the handshake, sending nothing", async () => {
    const { era, sent } = await connect({}, {}, true);
    const outcome = await call(era, { resumeTaskId: "task-1" }).outcome;
    expect(outcome).toMatchObject({ ok: false, error: { message: expect.stringMatching(/not sent again/) } });
    expect(methods(sent)).toEqual([]);
  });
});

describe("what a server says about its task is untrusted", () => {
  it("refuses an unknown status with a clear error and cancels the task", async () => {
    const { era, sent } = await connect({ "tools/call": [created()], "tasks/get": [task("paused")] });
    const outcome = await call(era).outcome;
    expect(outcome).toMatchObject({
      ok: false,
      error: {
        code: MCP_ERROR_CODES.internalError,
        message: expect.stringMatching(/unknown status "paused"/),
      },
    });
    expect(methods(sent).at(-1)).toBe("tasks/cancel");
  });

  it.each([
    ["control characters", "task\u001b[2J"],
    ["too long", "t".repeat(TASK_LIMITS.maxTaskIdLength + 1)],
    ["not a string", 7],
  ])("refuses a task id with %s, and never polls it", async (_name, taskId) => {
    const { era, sent } = await connect({ "tools/call": [created({ taskId })] });
    const outcome = await call(era).outcome;
    expect(outcome).toMatchObject({ ok: false, error: { message: expect.stringMatching(/taskId/) } });
    expect(methods(sent)).toEqual(["tools/call"]);
  });

  it("refuses a tasks/get answer about another task", async () => {
    const { era } = await connect({
      "tools/call": [created()],
      "tasks/get": [task("completed", { taskId: "task-2", result: RESULT })],
    });
    expect(await call(era).outcome).toMatchObject({ ok: false, error: { message: /another task/ } });
  });

  it("refuses a completed task without a result and a failed one without an error", async () => {
    for (const status of ["completed", "failed"]) {
      const { era } = await connect({ "tools/call": [created()], "tasks/get": [task(status)] });
      expect(await call(era).outcome).toMatchObject({
        ok: false,
        error: { code: MCP_ERROR_CODES.internalError },
      });
    }
  });

  it("polls no faster than the floor, whatever interval the server asks for", async () => {
    const { era } = await connect({
      "tools/call": [created({ pollIntervalMs: 0 })],
      "tasks/get": [task("completed", { result: RESULT })],
    });
    const { outcome, events } = call(era);
    await outcome;
    expect(events[0]).toMatchObject({ kind: "created", pollIntervalMs: TASK_LIMITS.minPollIntervalMs });
  });
});
