/**
 * The whole client against the misbehaving stdio servers of @agent/mcp-testing: each misbehaviour
 * ends in a safe, visible outcome (an observation, a rejected start, an event), and no process of the
 * test (server or grandchild) outlives it; every harness checks that again when its test ends.
 */
import { assertNoProcessesAlive, testServerCommand } from "@agent/mcp-testing/servers";
import { defineTool, executeToolCall } from "@agent/tools";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { delay, misbehavingHarness, stdioHarness, typesOf, waitFor } from "./integration-helpers.js";

const MiB = 1024 * 1024;

describe("misbehaving servers, through the whole client", () => {
  it("hang-initialize: start() rejects at the initialize timeout, the registry is unchanged, no process remains", async () => {
    const harness = misbehavingHarness("hang-initialize", {
      timeouts: { initializeMs: 300, closeMs: 1_000 },
    });
    const local = defineTool({
      name: "read_file",
      description: "A local tool.",
      schema: z.object({ path: z.string() }),
      effect: "read",
      execute: () => "local",
    });
    harness.registry.register(local);

    const started = performance.now();
    const starting = harness.connection.start();
    // Only the spawn is awaited: on a loaded machine the server may not even have started before
    // the 300 ms handshake deadline passes, which must end the same way.
    const pid = await waitFor(() => harness.transports[0]?.pid());
    const processes = [pid, ...harness.processes()];
    await expect(starting).rejects.toMatchObject({
      name: "McpClientError",
      code: "mcp_initialize_failed",
      message: "initialize timed out after 300 ms.",
    });
    // Not early: the handshake deadline, not a spawn failure, ended it (the message names it).
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);

    expect(harness.registry.names()).toEqual(["read_file"]);
    expect(harness.registry.get("read_file")).toBe(local);
    expect(harness.connection.state).toBe("failed");
    expect(
      typesOf(harness.events.events, "mcp_initialize_failed", "mcp_server_failed", "mcp_closed"),
    ).toEqual(["mcp_initialize_failed", "mcp_server_failed", "mcp_closed"]);
    // The server received initialize and nothing else: initialize is never cancelled on the wire.
    const received = harness.records().filter((record) => record.event === "received");
    expect(received.map((record) => record.method)).not.toContain("notifications/initialized");
    // start() closed what it opened: nobody has to call close() for the process to be gone.
    await assertNoProcessesAlive(processes);
  });

  it("hang-call: the executor's timeout gives `timeout`, the server is told, the connection stays usable", async () => {
    const harness = misbehavingHarness("hang-call", { allow: ["hang", "echo"], callTimeoutMs: 300 });
    await harness.connection.start();
    const started = performance.now();
    const outcome = await executeToolCall(
      { name: "mcp__misbehaving__hang", input: {}, callId: "call_hang" },
      harness.env,
    );
    const elapsed = performance.now() - started;
    // The executor's own bound ended the call (its message names it): the hang never answers.
    expect(outcome).toMatchObject({
      ok: false,
      error: "timeout",
      message: "The tool did not finish within 300 ms.",
    });
    expect(elapsed).toBeGreaterThanOrEqual(295);
    // The server's own record: its handler's signal aborted, i.e. notifications/cancelled arrived.
    await waitFor(() =>
      harness.records().find((record) => record.event === "cancelled" && record.tool === "hang"),
    );
    await waitFor(() =>
      harness.events
        .ofType("mcp_request_finished")
        .find((event) => event.callId === "call_hang" && event.code === -32_800),
    );
    expect(
      await executeToolCall(
        { name: "mcp__misbehaving__echo", input: { message: "still here" } },
        harness.env,
      ),
    ).toMatchObject({ ok: true });
    expect(harness.connection.state).toBe("ready");
  });

  it("hang-call: the connection's own callMs gives `timeout` too, and cancels on the server", async () => {
    const harness = misbehavingHarness("hang-call", {
      allow: ["hang"],
      timeouts: { callMs: 200 },
      callTimeoutMs: 5_000,
    });
    await harness.connection.start();
    const outcome = await executeToolCall({ name: "mcp__misbehaving__hang", input: {} }, harness.env);
    // The connection's callMs answered, not the executor's 5 s bound (whose message differs).
    expect(outcome).toMatchObject({
      ok: false,
      error: "timeout",
      message: expect.stringContaining("did not answer in time"),
    });
    await waitFor(() =>
      harness.records().find((record) => record.event === "cancelled" && record.tool === "hang"),
    );
  });

  it("exit-mid-call: mcp_error -32000, the connection is disconnected, later calls are mcp_unavailable", async () => {
    const harness = misbehavingHarness("exit-mid-call", { allow: ["exit", "echo"] });
    await harness.connection.start();
    const processes = harness.processes();
    const outcome = await executeToolCall({ name: "mcp__misbehaving__exit", input: {} }, harness.env);
    expect(outcome).toMatchObject({
      ok: false,
      error: "mcp_error",
      code: -32_000,
      message: expect.stringContaining("the server exited with code 3"),
    });
    expect(harness.connection.state).toBe("disconnected");
    expect(harness.connection.error).toEqual({
      code: "mcp_connection_closed",
      message: "the server exited with code 3",
    });
    expect(harness.events.ofType("mcp_server_exited")).toEqual([
      expect.objectContaining({
        server: "misbehaving",
        reason: "exited",
        message: "the server exited with code 3",
      }),
    ]);
    // The tools stay listed, so the model learns the server is unavailable rather than that the tool vanished.
    const later = await executeToolCall(
      { name: "mcp__misbehaving__echo", input: { message: "hello?" } },
      harness.env,
    );
    expect(later).toMatchObject({ ok: false, error: "mcp_unavailable" });
    await assertNoProcessesAlive(processes);
  });

  it("exit-mid-call with reconnect: a new server process comes back and calls work again", async () => {
    const harness = misbehavingHarness("exit-mid-call", {
      allow: ["exit", "echo"],
      connection: { reconnect: { maxAttempts: 3, initialDelayMs: 50, maxDelayMs: 200 } },
    });
    await harness.connection.start();
    const first = harness.processes();
    expect(await executeToolCall({ name: "mcp__misbehaving__exit", input: {} }, harness.env)).toMatchObject({
      error: "mcp_error",
    });
    await waitFor(
      () => harness.connection.state === "ready" && harness.transports.length === 2,
      5_000,
      "reconnected",
    );
    await harness.connection.toolsSettled();
    expect(
      await executeToolCall({ name: "mcp__misbehaving__echo", input: { message: "back" } }, harness.env),
    ).toMatchObject({ ok: true, output: { content: [{ type: "text", text: '{"message":"back"}' }] } });
    expect(
      typesOf(harness.events.events, "mcp_server_exited", "mcp_reconnecting", "mcp_initialized"),
    ).toEqual(["mcp_initialized", "mcp_server_exited", "mcp_reconnecting", "mcp_initialized"]);
    await assertNoProcessesAlive(first);
  });

  it("ignore-sigterm: close() returns within closeMs and neither the server nor its grandchild remains", async () => {
    const harness = misbehavingHarness("ignore-sigterm", {
      timeouts: { closeMs: 1_000 },
      transport: { closeTimeoutMs: 600 },
    });
    await harness.connection.start();
    const grandchild = Number(
      (await waitFor(() => harness.records().find((record) => record.event === "grandchild")))?.pid,
    );
    const processes = harness.processes();
    expect(processes).toEqual(expect.arrayContaining([harness.transport().pid(), grandchild]));

    await harness.connection.close();
    // Within its bound: a close past closeMs reports mcp_close_failed.
    expect(harness.events.ofType("mcp_close_failed")).toEqual([]);
    expect(harness.events.ofType("mcp_closed")).toHaveLength(1);
    expect(harness.transport().diagnostics().closeEscalation).toBe("sigkill");
    expect(harness.records().some((record) => record.event === "sigterm-ignored")).toBe(true);
    await assertNoProcessesAlive(processes, 1_000);
  });

  it("ignore-sigterm with closeMs unset: the connection waits out the transport's whole kill sequence, however long it is configured", async () => {
    // SIGKILL comes at 80% of 7 s, later than any fixed close deadline the connection used to
    // guess (5 s); derived from the transport's bound, the connection's deadline is later still.
    const harness = misbehavingHarness("ignore-sigterm", {
      timeouts: { closeMs: undefined },
      transport: { closeTimeoutMs: 7_000 },
    });
    await harness.connection.start();
    await waitFor(() => harness.records().find((record) => record.event === "grandchild"));
    const processes = harness.processes();
    await harness.connection.close();
    expect(harness.events.ofType("mcp_close_failed")).toEqual([]);
    expect(harness.events.ofType("mcp_closed")).toHaveLength(1);
    expect(harness.transport().diagnostics().closeEscalation).toBe("sigkill");
    await assertNoProcessesAlive(processes);
  });

  it("ignore-sigterm with closeMs shorter than the kill: close() still returns in time, reports it, and nothing survives", async () => {
    const harness = misbehavingHarness("ignore-sigterm", {
      timeouts: { closeMs: 150 },
      transport: { closeTimeoutMs: 600 },
    });
    await harness.connection.start();
    await waitFor(() => harness.records().find((record) => record.event === "grandchild"));
    const processes = harness.processes();
    await expect(harness.connection.close()).resolves.toBeUndefined();
    // Returned at its own 150 ms bound, not the transport's 600 ms: the event below says so.
    expect(harness.events.ofType("mcp_close_failed")).toEqual([
      expect.objectContaining({ server: "misbehaving", message: "close did not finish within 150 ms" }),
    ]);
    // The transport goes on to SIGKILL the whole group in the background.
    await assertNoProcessesAlive(processes, 2_000);
  });

  it("noisy-stdout: banners and garbage are skipped; tools are discovered and callable", async () => {
    const harness = misbehavingHarness("noisy-stdout", { allow: ["echo"] });
    await harness.connection.start();
    expect(harness.registry.names()).toEqual(["mcp__misbehaving__echo"]);
    const echo = await executeToolCall(
      { name: "mcp__misbehaving__echo", input: { message: "hi" } },
      harness.env,
    );
    expect(echo).toMatchObject({
      ok: true,
      output: { content: [{ type: "text", text: '{"message":"hi"}' }] },
    });
    await delay(60);
    expect(harness.transport().diagnostics().skippedLines).toBeGreaterThanOrEqual(6);
    expect(harness.transportErrors).toEqual([]);
  });

  it("flood-stderr: megabytes of stderr neither block the server nor grow the kept tail", async () => {
    const harness = misbehavingHarness("flood-stderr", {
      allow: ["flood", "echo"],
      timeouts: { initializeMs: 5_000 },
      transport: { env: { MCP_TESTING_STDERR_BYTES: String(4 * MiB) } },
    });
    // The server writes 4 MiB of stderr, blocking, before it answers anything.
    await harness.connection.start();
    expect(
      await executeToolCall({ name: "mcp__misbehaving__flood", input: { bytes: 2 * MiB } }, harness.env),
    ).toMatchObject({
      ok: true,
      output: { content: [{ type: "text", text: expect.stringMatching(/^flooded \d+ bytes$/) }] },
    });
    expect(
      await executeToolCall({ name: "mcp__misbehaving__echo", input: { message: "heard" } }, harness.env),
    ).toMatchObject({ ok: true });
    expect(harness.transport().diagnostics().stderrBytes).toBeGreaterThan(6 * MiB);
    // 64 KiB kept by default; escaping makes each ESC byte four characters.
    expect(harness.transport().stderrTail().length).toBeLessThan(64 * 1024 * 1.2);
  });

  it("huge-message: a message over maxMessageBytes closes the connection as a protocol violation, safely", async () => {
    const harness = misbehavingHarness("huge-message", {
      allow: ["huge", "echo"],
      transport: { maxMessageBytes: MiB },
    });
    await harness.connection.start();
    const fits = await executeToolCall(
      { name: "mcp__misbehaving__huge", input: { bytes: 500_000 } },
      harness.env,
    );
    expect(fits).toMatchObject({ ok: true });
    const processes = harness.processes();

    const outcome = await executeToolCall(
      { name: "mcp__misbehaving__huge", input: { bytes: 8 * MiB } },
      harness.env,
    );
    expect(outcome).toMatchObject({
      ok: false,
      error: "mcp_error",
      code: -32_000,
      message: expect.stringContaining("connection closed (protocol)"),
    });
    expect(harness.connection.state).toBe("disconnected");
    const [exited] = harness.events.ofType("mcp_server_exited");
    expect(exited).toMatchObject({ reason: "protocol", message: expect.stringContaining("maxMessageBytes") });
    // Reading stopped soon after the cap: the 8 MiB line was never held in memory.
    const seen = Number(/at least (\d+) (?:bytes )?seen/.exec(exited?.message ?? "")?.[1]);
    expect(seen).toBeGreaterThan(MiB);
    expect(seen).toBeLessThan(2 * MiB);
    expect(
      await executeToolCall({ name: "mcp__misbehaving__echo", input: { message: "hello?" } }, harness.env),
    ).toMatchObject({ ok: false, error: "mcp_unavailable" });
    // Nobody called close(): the transport ended the server itself.
    await assertNoProcessesAlive(processes);
  });

  it("schema-change: after list_changed the fingerprint changes, the old grant applies to nothing, the new schema rules", async () => {
    // `search` is not allowed: it asks, so a grant is needed.
    const harness = misbehavingHarness("schema-change", { allow: ["change-schema"] });
    await harness.connection.start();
    const search = (input: unknown) =>
      executeToolCall({ name: "mcp__misbehaving__search", input }, harness.env);
    const before = harness.registry.get("mcp__misbehaving__search")?.fingerprint;

    const held = await search({ query: "x" });
    if (held.type !== "waiting") throw new Error("expected the call to be held");
    await harness.approvals.grantApproval(held.requestId);

    // The server changes the schema, then says so (the correct order).
    expect(
      await executeToolCall(
        { name: "mcp__misbehaving__change-schema", input: { notify: "after" } },
        harness.env,
      ),
    ).toMatchObject({ ok: true });
    await waitFor(() => harness.events.ofType("mcp_tools_changed").length > 0, 5_000, "mcp_tools_changed");
    await harness.connection.toolsSettled();
    expect(harness.events.ofType("mcp_tools_changed")).toEqual([
      expect.objectContaining({
        server: "misbehaving",
        added: [],
        removed: [],
        changed: ["mcp__misbehaving__search"],
      }),
    ]);
    const after = harness.registry.get("mcp__misbehaving__search")?.fingerprint;
    expect(after).toBeDefined();
    expect(after).not.toBe(before);

    // The granted input is no longer valid (v2 requires `limit`): refused locally, never sent.
    expect(await search({ query: "x" })).toMatchObject({ ok: false, error: "invalid_arguments" });
    // A call valid under the new schema is held again, bound to the new fingerprint.
    const again = await search({ query: "x", limit: 2 });
    expect(again).toMatchObject({ type: "waiting" });
    if (again.type !== "waiting") throw new Error("expected the call to be held");
    expect((await harness.approvals.getApproval(again.requestId))?.toolFingerprint).toBe(after);
    // The old grant was never used: the first call of the new definition voided it for good.
    expect(await harness.approvals.getApproval(held.requestId)).toMatchObject({
      status: "voided",
      voidReason: expect.stringContaining("changed"),
    });
    expect(
      harness.events
        .ofType("mcp_request_finished")
        .filter((event) => event.toolName === "mcp__misbehaving__search"),
    ).toEqual([]);
  });

  it("a definition changed across a reconnect: the same call, granted before, is held again", async () => {
    let generation = 0;
    const harness = stdioHarness(
      () => {
        generation += 1;
        const tools = [
          {
            name: "lookup",
            description: `Looks things up (definition ${generation}).`,
            inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
          },
        ];
        return { ...testServerCommand("scriptable"), env: { MCP_TESTING_TOOLS: JSON.stringify(tools) } };
      },
      { name: "scripted" },
    );
    await harness.connection.start();
    const lookup = () =>
      executeToolCall({ name: "mcp__scripted__lookup", input: { q: "same" } }, harness.env);
    const held = await lookup();
    if (held.type !== "waiting") throw new Error("expected the call to be held");
    await harness.approvals.grantApproval(held.requestId);
    const before = harness.registry.get("mcp__scripted__lookup")?.fingerprint;

    await harness.connection.reconnect();
    expect(harness.transports).toHaveLength(2);
    expect(harness.registry.get("mcp__scripted__lookup")?.fingerprint).not.toBe(before);
    expect(harness.events.ofType("mcp_tools_changed")).toEqual([
      expect.objectContaining({ changed: ["mcp__scripted__lookup"] }),
    ]);
    const again = await lookup();
    expect(again).toMatchObject({ type: "waiting" });
    expect(again.type === "waiting" && again.requestId).not.toBe(held.requestId);
    // Never used, and voided for good by the first call of the new definition.
    expect(await harness.approvals.getApproval(held.requestId)).toMatchObject({ status: "voided" });
  });
});
