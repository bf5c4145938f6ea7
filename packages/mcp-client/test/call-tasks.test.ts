/**
 * A remote call's task on FakeTransport behind the real era negotiation: polled to the result it
 * inlines with an `mcp_task` event per step, checkpointed when created, and a resumed call that
 * cannot be followed here (another server's checkpoint, a handshake-era server) is refused without
 * sending the call again.
 */
import { fakeServer, ok, statelessFakeServer, taskCreated, taskState, textContent } from "@agent/mcp-testing";
import { type McpTransport, negotiateEra } from "@agent/mcp-transport";
import { executeToolCall, type JsonValue } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { ALLOW_EXTERNAL, createFakeSetup } from "./harness.js";

function taskSetup(polls: Record<string, unknown>[]) {
  let stateless: McpTransport | undefined;
  const handlers = {
    ...statelessFakeServer({ call: () => ok(taskCreated("task-9")) }),
    "tasks/get": () => ok(polls.length > 1 ? polls.shift() : polls[0]),
  };
  const setup = createFakeSetup(handlers, {
    policy: ALLOW_EXTERNAL,
    connection: { connect: () => stateless ?? setup.transport },
  });
  stateless = negotiateEra(setup.transport);
  return setup;
}

const DONE = taskState("task-9", "completed", { result: { content: [textContent("built")] } });

describe("a remote call answered with a task", () => {
  it("is followed to its result, checkpointed when created, and audited step by step", async () => {
    const { connection, env, transport, events } = taskSetup([taskState("task-9", "working"), DONE]);
    await connection.start();
    const checkpoints: JsonValue[] = [];
    const outcome = await executeToolCall(
      {
        name: "mcp__docs__search",
        input: { q: "x" },
        callId: "c1",
        checkpoint: (state) => void checkpoints.push(state),
      },
      env,
    );
    expect(outcome).toMatchObject({ ok: true, output: { content: [{ type: "text", text: "built" }] } });
    expect(checkpoints).toEqual([{ mcpTask: { server: "docs", taskId: "task-9" } }]);
    expect(transport.requestsFor("tasks/get")).toHaveLength(2);
    expect(events.ofType("mcp_task").map((event) => [event.step, event.status])).toEqual([
      ["created", "working"],
      ["status", "completed"],
    ]);
    await connection.close();
  });

  it("resumed with another server's checkpoint, is refused and sends nothing", async () => {
    const { connection, env, transport } = taskSetup([DONE]);
    await connection.start();
    const outcome = await executeToolCall(
      {
        name: "mcp__docs__search",
        input: { q: "x" },
        resume: { mcpTask: { server: "other", taskId: "task-9" } },
      },
      env,
    );
    expect(outcome).toMatchObject({
      ok: false,
      error: "mcp_error",
      message: expect.stringMatching(/not sent again/),
    });
    expect(transport.requestsFor("tools/call")).toEqual([]);
    expect(transport.requestsFor("tasks/get")).toEqual([]);
    await connection.close();
  });

  it("resumed on a server that speaks the handshake, is refused and never sent again", async () => {
    const setup = createFakeSetup(fakeServer({ protocolVersion: "2025-11-25" }), { policy: ALLOW_EXTERNAL });
    await setup.connection.start();
    const outcome = await executeToolCall(
      {
        name: "mcp__docs__search",
        input: { q: "x" },
        resume: { mcpTask: { server: "docs", taskId: "task-9" } },
      },
      setup.env,
    );
    expect(outcome).toMatchObject({
      ok: false,
      error: "mcp_error",
      message: expect.stringMatching(/2026-07-28/),
    });
    expect(setup.transport.requestsFor("tools/call")).toEqual([]);
    await setup.connection.close();
  });
});
