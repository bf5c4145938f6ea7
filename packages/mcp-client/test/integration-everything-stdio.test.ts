/**
 * The whole client against the pinned server-everything over real stdio: discovery into the registry,
 * calls through executeToolCall and the real policy gate, approvals, cancellation, timeout and close,
 * each checked on the outcome, on the audit stream and, where it matters, on the wire.
 */
import { assertNoProcessesAlive } from "@agent/mcp-testing/servers";
import { executeToolCall, type SuccessObservation } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { loadReferenceListing } from "./fixtures/reference-tools.js";
import {
  cancelAfterSecondProgress,
  isCancellationOf,
  LONG_RUNNING_TOOL,
  lateProgress,
  lateResponses,
  requestIdOf,
} from "./integration-cancellation.js";
import {
  EVERYTHING_BUILTIN_TOOLS,
  EVERYTHING_CAPABILITY_GATED_TOOLS,
  everythingStdio,
  waitFor,
} from "./integration-helpers.js";

const CALLED_TOOLS = ["echo", "get-tiny-image", "get-structured-content", "get-sum"];

/** The output of a successful call: an McpToolOutput, with content blocks open to inspection. */
interface CallOutput {
  content: Record<string, unknown>[];
  structuredContent?: unknown;
}

function outputOf(outcome: unknown): CallOutput {
  expect(outcome).toMatchObject({ type: "observation", ok: true });
  return (outcome as SuccessObservation).output as CallOutput;
}

describe("server-everything over stdio, through the whole client", () => {
  it("discovers every tool the server lists, as external tools, with nothing rejected", async () => {
    const harness = everythingStdio();
    await harness.connection.start();
    await harness.connection.toolsSettled();
    expect(harness.connection.state).toBe("ready");

    // What the server itself lists (asked directly, outside the client) is the reference.
    const raw = await harness.transport().request("tools/list", {}, AbortSignal.timeout(5_000));
    const listed = (raw.ok ? (raw.result as { tools: { name: string }[] }).tools : []).map(
      (tool) => tool.name,
    );
    const registered = harness.registry.listGroup(harness.connection.group);
    expect(registered.map((tool) => tool.name).sort()).toEqual(
      [...listed.map((name) => `mcp__everything__${name}`), ...EVERYTHING_BUILTIN_TOOLS].sort(),
    );
    expect(harness.connection.snapshot()).toMatchObject({ rejected: [], excluded: [] });
    expect(registered.every((tool) => tool.effect === "external")).toBe(true);

    // The pinned version lists what the stored fixture says, minus the tools gated on client capabilities.
    const fixture = loadReferenceListing("server-everything").tools.map((tool) => tool.name);
    expect(listed.sort()).toEqual(
      fixture.filter((name) => !EVERYTHING_CAPABILITY_GATED_TOOLS.includes(name)).sort(),
    );
    expect(listed).toEqual(expect.arrayContaining([...CALLED_TOOLS, "trigger-long-running-operation"]));

    // A readOnlyHint is kept as an unverified hint; it does not lower the effect.
    expect(harness.registry.get("mcp__everything__get-sum")).toMatchObject({
      effect: "external",
      annotations: { readOnlyHint: true },
    });
    expect(harness.events.ofType("mcp_initialized")).toEqual([
      expect.objectContaining({ server: "everything", serverName: "mcp-servers/everything" }),
    ]);
    // The server announces list_changed while the first listing is under way; the client lists again
    // rather than trust a listing that may be stale, and both listings agree.
    const listings = harness.events.ofType("mcp_tools_listed");
    expect(listings.length).toBeGreaterThanOrEqual(1);
    for (const listing of listings) {
      expect(listing).toMatchObject({ server: "everything", count: listed.length, rejected: 0, pages: 1 });
    }
    expect(harness.events.ofType("mcp_tools_changed")).toEqual([]);
  });

  it("calls text, image, structured-content and sum tools through the gate, with a full audit trail", async () => {
    const harness = everythingStdio({ allow: CALLED_TOOLS });
    await harness.connection.start();
    const call = (name: string, input: unknown, callId: string) =>
      executeToolCall({ name: `mcp__everything__${name}`, input, callId }, harness.env);

    const echo = outputOf(await call("echo", { message: "hello over stdio" }, "call_echo"));
    expect(echo.content).toEqual([{ type: "text", text: "Echo: hello over stdio" }]);

    const image = outputOf(await call("get-tiny-image", {}, "call_image"));
    expect(image.content.map((block) => block.type)).toEqual(["text", "image", "text"]);
    const imageBlock = image.content[1] as { mimeType: string; data: string };
    expect(imageBlock.mimeType).toBe("image/png");
    expect(Buffer.from(imageBlock.data, "base64").subarray(1, 4).toString()).toBe("PNG");

    const weather = outputOf(await call("get-structured-content", { location: "Chicago" }, "call_weather"));
    expect(weather.structuredContent).toEqual({
      temperature: 36,
      conditions: "Light rain / drizzle",
      humidity: 82,
    });
    expect(JSON.parse(String(weather.content[0]?.text))).toEqual(weather.structuredContent);

    const sum = outputOf(await call("get-sum", { a: 19, b: 23 }, "call_sum"));
    expect(sum.content).toEqual([{ type: "text", text: "The sum of 19 and 23 is 42." }]);

    // A value outside the declared enum is refused locally: nothing reaches the server.
    const invalid = await call("get-structured-content", { location: "Paris" }, "call_invalid");
    expect(invalid).toMatchObject({ ok: false, error: "invalid_arguments" });

    const trail = (callId: string) =>
      harness.events.events.filter((event) => "callId" in event && event.callId === callId);
    for (const callId of ["call_echo", "call_image", "call_weather", "call_sum"]) {
      // Two records a call: the decision (with what opened the call) and the outcome (with its request).
      expect(trail(callId)).toEqual([
        expect.objectContaining({
          type: "tool_call_decided",
          effect: "external",
          decision: "allow",
          via: "policy",
          isolation: "none",
        }),
        expect.objectContaining({
          type: "tool_call_finished",
          ok: true,
          server: "everything",
          request: expect.objectContaining({ server: "everything", method: "tools/call", ok: true }),
        }),
      ]);
    }
    // Refused before a decision: one record.
    expect(trail("call_invalid")).toEqual([
      expect.objectContaining({ type: "tool_call_finished", effect: "external", code: "invalid_arguments" }),
    ]);
    // The image travels to the model, never into the audit stream.
    expect(JSON.stringify(harness.events.events)).not.toContain(imageBlock.data.slice(0, 64));
  });

  it("holds a tool the policy does not allow until a one-shot grant, and denies what a rule denies", async () => {
    const harness = everythingStdio({
      policy: { rules: [{ tool: "mcp__everything__toggle-*", decision: "deny", reason: "no toggles" }] },
    });
    await harness.connection.start();
    const getEnv = { name: "mcp__everything__get-env", input: {} };
    const toolCalls = () =>
      harness.events.ofType("tool_call_finished").filter((event) => event.request?.method === "tools/call");

    const held = await executeToolCall(getEnv, harness.env);
    expect(held).toMatchObject({ type: "waiting", reason: "approval_required" });
    if (held.type !== "waiting") throw new Error("expected the call to be held");
    const [request] = await harness.approvals.listApprovals({ status: "pending" });
    expect(request?.summary).toContain("(unverified)");
    expect(toolCalls()).toEqual([]);

    await harness.approvals.grantApproval(held.requestId);
    const granted = await executeToolCall(getEnv, harness.env);
    expect(granted).toMatchObject({ type: "observation", ok: true });
    expect(await executeToolCall(getEnv, harness.env)).toMatchObject({ type: "waiting" });

    const denied = await executeToolCall(
      { name: "mcp__everything__toggle-simulated-logging", input: {} },
      harness.env,
    );
    expect(denied).toMatchObject({
      ok: false,
      error: "policy_denied",
      reason: expect.stringContaining("no toggles"),
    });
    expect(toolCalls()).toHaveLength(1);
    expect(harness.events.ofType("approval_consumed")).toHaveLength(1);
  });

  it("cancels the long-running operation mid-way: cancelled, progress stops, the server drops its result", async () => {
    const harness = everythingStdio({ allow: ["trigger-long-running-operation", "echo"], recordWire: true });
    await harness.connection.start();

    // Control: left alone, the operation reports its steps and then answers. (Its last progress may be
    // lost: it arrives with the result, and the SDK retires the progress handler on the result before
    // dispatching the notification; modelcontextprotocol/typescript-sdk#2580.)
    const steps: number[] = [];
    const finished = await executeToolCall(
      { name: LONG_RUNNING_TOOL, input: { duration: 0.1, steps: 2 } },
      { ...harness.env, onProgress: (update) => steps.push(update.progress) },
    );
    expect(outputOf(finished).content[0]?.text).toMatch(/^Long running operation completed/);
    expect(steps[0]).toBe(1);

    const run = await cancelAfterSecondProgress(harness, { duration: 0.6, steps: 6 });
    expect(run.outcome).toMatchObject({ type: "observation", ok: false, error: "cancelled" });
    expect(run.progress).toEqual([
      { progress: 1, total: 6 },
      { progress: 2, total: 6 },
    ]);

    // The executor's abort reached the wire as notifications/cancelled for exactly this request.
    const requestId = requestIdOf(
      harness.wire,
      (request) =>
        request.params?.name === "trigger-long-running-operation" && request.params.arguments?.steps === 6,
    );
    expect(requestId).toBeDefined();
    expect(harness.wire.filter((message) => isCancellationOf(message, requestId))).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "cancelled by the client" },
      },
    ]);

    // server-everything's loop ignores the abort and keeps reporting steps 3-6 for the cancelled
    // token; the client drops them (no callback). Once step 6 arrived its handler has returned, and
    // the SDK server, having seen notifications/cancelled, withheld the result. A request sent now is
    // answered after any result written with step 6 (stdout is ordered), so its answer proves none came.
    await waitFor(() => lateProgress(harness, requestId).length === 4, 5_000, "late progress 3-6");
    expect(lateProgress(harness, requestId)).toEqual([3, 4, 5, 6]);
    const echo = await executeToolCall(
      { name: "mcp__everything__echo", input: { message: "after" } },
      harness.env,
    );
    expect(echo).toMatchObject({ ok: true });
    expect(lateResponses(harness)).toEqual([]);
    expect(run.progress).toHaveLength(2);

    expect(harness.events.ofType("tool_call_finished")).toContainEqual(
      expect.objectContaining({ callId: run.callId, ok: false, code: "cancelled" }),
    );
    await waitFor(() =>
      harness.events
        .ofType("mcp_request_finished")
        .find((event) => event.callId === run.callId && event.code === -32_800),
    );
    expect(harness.connection.state).toBe("ready");
  });

  it("times a call out at the executor's limit and cancels it on the server; the connection stays usable", async () => {
    const harness = everythingStdio({
      allow: ["trigger-long-running-operation", "echo"],
      recordWire: true,
      callTimeoutMs: 300,
    });
    await harness.connection.start();
    const started = performance.now();
    const outcome = await executeToolCall(
      { name: LONG_RUNNING_TOOL, input: { duration: 3, steps: 3 }, callId: "call_slow" },
      harness.env,
    );
    // Timed out, not finished: the operation runs 3 s, ten times the bound.
    expect(outcome).toMatchObject({ ok: false, error: "timeout" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    const requestId = requestIdOf(harness.wire, (request) => request.method === "tools/call");
    await waitFor(() => harness.wire.find((message) => isCancellationOf(message, requestId)));
    expect(
      await executeToolCall({ name: "mcp__everything__echo", input: { message: "still here" } }, harness.env),
    ).toMatchObject({ ok: true });
    expect(harness.events.ofType("tool_call_finished")).toContainEqual(
      expect.objectContaining({ callId: "call_slow", code: "timeout" }),
    );
  });

  it("closes once, within its bound, removing the tools and leaving no process", async () => {
    const harness = everythingStdio({ allow: ["echo"], timeouts: { closeMs: 2_000 } });
    await harness.connection.start();
    const processes = harness.processes();
    expect(processes).toContain(harness.transport().pid());

    // Within its bound: a close past closeMs reports mcp_close_failed (asserted empty below).
    await Promise.all([harness.connection.close(), harness.connection.close()]);
    await harness.connection.close();
    expect(harness.connection.state).toBe("closed");
    expect(harness.registry.listGroup(harness.connection.group)).toEqual([]);
    expect(harness.events.ofType("mcp_closed")).toHaveLength(1);
    expect(harness.events.ofType("mcp_close_failed")).toEqual([]);
    expect(
      await executeToolCall({ name: "mcp__everything__echo", input: { message: "gone" } }, harness.env),
    ).toMatchObject({ ok: false, error: "unknown_tool" });
    await assertNoProcessesAlive(processes);
    expect(harness.processes()).toEqual([]);
  });
});
