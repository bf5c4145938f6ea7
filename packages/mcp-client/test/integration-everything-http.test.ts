/**
 * The whole client against the pinned server-everything over Streamable HTTP on loopback: discovery,
 * calls through executeToolCall and the real policy gate, cancellation seen on the wire and by the
 * server, a server that dies mid-call, and a close that ends the session.
 */
import { executeToolCall, type SuccessObservation } from "@agent/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
  delay,
  EVERYTHING_BUILTIN_TOOLS,
  EVERYTHING_CAPABILITY_GATED_TOOLS,
  type EverythingHttpServer,
  everythingHttp,
  startEverythingHttp,
  stopEverythingHttp,
  waitFor,
} from "./integration-helpers.js";

const bodies = (wire: readonly { body: unknown }[]): unknown[] => wire.map((record) => record.body);

describe("server-everything over Streamable HTTP on loopback, through the whole client", () => {
  // One server for the tests that leave it running; each test has its own connection and session.
  let shared: EverythingHttpServer | undefined;
  beforeAll(async () => {
    shared = await startEverythingHttp();
  });
  afterAll(async () => {
    if (shared) await stopEverythingHttp(shared);
  });
  const server = (): EverythingHttpServer => {
    if (!shared) throw new Error("The shared server did not start.");
    return shared;
  };

  it("discovers the same tools as over stdio and calls several through the gate", async () => {
    const harness = await everythingHttp({
      server: server(),
      allow: ["echo", "get-sum", "get-tiny-image", "get-structured-content"],
    });
    expect(new URL(harness.server.url).hostname).toBe("127.0.0.1");
    await harness.connection.start();
    expect(harness.transport().sessionId()).toMatch(/^[0-9a-f-]{36}$/);

    const expected = loadReferenceListing("server-everything")
      .tools.map((tool) => tool.name)
      .filter((name) => !EVERYTHING_CAPABILITY_GATED_TOOLS.includes(name))
      .map((name) => `mcp__everything__${name}`)
      .concat(EVERYTHING_BUILTIN_TOOLS);
    const registered = harness.registry.listGroup(harness.connection.group);
    expect(registered.map((tool) => tool.name).sort()).toEqual(expected.sort());
    expect(registered.every((tool) => tool.effect === "external")).toBe(true);
    expect(harness.connection.snapshot().rejected).toEqual([]);

    const call = (name: string, input: unknown) =>
      executeToolCall({ name: `mcp__everything__${name}`, input }, harness.env);
    expect(await call("echo", { message: "over http" })).toMatchObject({
      ok: true,
      output: { content: [{ type: "text", text: "Echo: over http" }] },
    });
    expect(await call("get-sum", { a: 2, b: 40 })).toMatchObject({
      ok: true,
      output: { content: [{ type: "text", text: "The sum of 2 and 40 is 42." }] },
    });
    const image = (await call("get-tiny-image", {})) as SuccessObservation;
    expect(image).toMatchObject({ ok: true });
    expect((image.output as { content: { type: string }[] }).content[1]).toMatchObject({
      type: "image",
      mimeType: "image/png",
    });
    expect(await call("get-structured-content", { location: "New York" })).toMatchObject({
      ok: true,
      output: { structuredContent: { temperature: 33, conditions: "Cloudy", humidity: 82 } },
    });
    expect(
      harness.events
        .ofType("tool_call_decided")
        .every((event) => event.decision === "allow" && event.via === "policy"),
    ).toBe(true);
  });

  it("cancels the long-running operation mid-way: cancelled, progress stops, the server drops its result", async () => {
    const harness = await everythingHttp({ server: server(), allow: ["trigger-long-running-operation"] });
    await harness.connection.start();
    const run = await cancelAfterSecondProgress(harness, { duration: 0.6, steps: 6 });
    expect(run.outcome).toMatchObject({ type: "observation", ok: false, error: "cancelled" });
    expect(run.progress).toEqual([
      { progress: 1, total: 6 },
      { progress: 2, total: 6 },
    ]);

    // The cancellation went over the wire, as a POST in the same session, for exactly this request.
    const requestId = requestIdOf(
      bodies(harness.wire),
      (request) => request.params?.name === "trigger-long-running-operation",
    );
    expect(requestId).toBeDefined();
    await waitFor(() => harness.wire.find((record) => isCancellationOf(record.body, requestId)));
    expect(harness.wire.find((record) => isCancellationOf(record.body, requestId))?.method).toBe("POST");

    // The server's loop ignores the abort and reports steps 3-6 on the request's event stream; the
    // client drops them. Its result would follow step 6 on that same stream: it never comes, because
    // the SDK server saw notifications/cancelled. (Across HTTP streams there is no order to lean on,
    // so this waits a while after step 6 instead.)
    await waitFor(() => lateProgress(harness, requestId).length === 4, 5_000, "late progress 3-6");
    expect(lateProgress(harness, requestId)).toEqual([3, 4, 5, 6]);
    await delay(300);
    expect(lateResponses(harness)).toEqual([]);
    expect(run.progress).toHaveLength(2);
    expect(harness.events.ofType("tool_call_finished")).toContainEqual(
      expect.objectContaining({ callId: run.callId, code: "cancelled" }),
    );
    expect(harness.connection.state).toBe("ready");
  });

  it("turns a server that dies mid-call into mcp_error, then mcp_unavailable", async () => {
    // Its own server: this test kills it.
    const harness = await everythingHttp({ allow: ["trigger-long-running-operation", "echo"] });
    await harness.connection.start();
    let progressed = false;
    const pending = executeToolCall(
      { name: LONG_RUNNING_TOOL, input: { duration: 5, steps: 20 }, callId: "call_orphaned" },
      {
        ...harness.env,
        onProgress: () => {
          progressed = true;
        },
      },
    );
    // Mid-call: the server is working on it and has reported progress.
    await waitFor(() => progressed);
    await harness.server.kill();
    expect(await pending).toMatchObject({ ok: false, error: "mcp_error", code: -32_000 });
    await waitFor(() => harness.connection.state === "disconnected");
    expect(harness.events.ofType("mcp_server_exited")).toEqual([
      expect.objectContaining({ server: "everything", reason: "lost" }),
    ]);
    expect(
      await executeToolCall({ name: "mcp__everything__echo", input: { message: "anyone?" } }, harness.env),
    ).toMatchObject({ ok: false, error: "mcp_unavailable" });
  });

  it("ends the session on close, within its bound", async () => {
    const harness = await everythingHttp({ server: server(), timeouts: { closeMs: 2_000 } });
    await harness.connection.start();
    await harness.connection.close();
    expect(harness.wire.at(-1)?.method).toBe("DELETE");
    expect(harness.events.ofType("mcp_closed")).toHaveLength(1);
    // Within its bound: a close past closeMs reports mcp_close_failed.
    expect(harness.events.ofType("mcp_close_failed")).toEqual([]);
    expect(harness.registry.names()).toEqual([]);
  });
});
