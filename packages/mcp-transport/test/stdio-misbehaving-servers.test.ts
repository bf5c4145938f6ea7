import { MCP_ERROR_CODES, type McpCloseReason } from "@agent/mcp-transport";
import { createStdioTransport, type StdioTransportOptions } from "@agent/mcp-transport/stdio";
import { describe, expect, it } from "vitest";
import {
  assertNoProcessesAlive,
  isProcessAlive,
  type MisbehavingServerName,
  parseServerRecords,
  processTreeOf,
  type ServerRecord,
  testServerCommand,
} from "../../mcp-testing/src/servers/index.js";
import { closeAfterTest, delay, INITIALIZE_PARAMS, initialize, never, waitFor } from "./helpers.js";

function start(name: MisbehavingServerName, options: Partial<StdioTransportOptions> = {}) {
  const transport = closeAfterTest(
    createStdioTransport({ ...testServerCommand(name), closeTimeoutMs: 1000, ...options }),
  );
  const closes: McpCloseReason[] = [];
  transport.onClose((reason) => closes.push(reason));
  const records = (): ServerRecord[] => parseServerRecords(transport.stderrTail());
  const recorded = (event: string) => waitFor(() => records().find((record) => record.event === event));
  return { transport, closes, records, recorded };
}

describe("misbehaving stdio servers", () => {
  it("hang-initialize: a silent era probe falls back to initialize within the limit, which times out with -32001 and is never cancelled on the wire", async () => {
    const { transport, records } = start("hang-initialize");
    const response = await transport.request("initialize", INITIALIZE_PARAMS, {
      signal: never(),
      timeoutMs: 300,
    });
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.timeout } });
    const received = () =>
      records().flatMap((record) => (record.event === "received" ? [record.method] : []));
    await waitFor(() => received().includes("initialize"));
    await delay(100);
    // The probe had half the limit and, unanswered, was cancelled like any request; silence on
    // stdio is an old server's answer, so the handshake came next, on the same child.
    expect(received()).toEqual(["server/discover", "notifications/cancelled", "initialize"]);
    const tree = processTreeOf(transport.pid() as number);
    await transport.close();
    expect(transport.diagnostics().closeEscalation).toBe("stdin");
    await assertNoProcessesAlive(tree);
  });

  it("hang-call: timeout and abort resolve, the server is told, and the connection stays usable", async () => {
    const { transport, records } = start("hang-call");
    await initialize(transport);
    const timedOut = await transport.request(
      "tools/call",
      { name: "hang" },
      { signal: never(), timeoutMs: 200 },
    );
    expect(timedOut).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.timeout } });
    const controller = new AbortController();
    const aborted = transport.request("tools/call", { name: "hang" }, controller.signal);
    await delay(50);
    controller.abort();
    expect(await aborted).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    await waitFor(() => records().filter((record) => record.event === "cancelled").length === 2);
    const echo = await transport.request(
      "tools/call",
      { name: "echo", arguments: { message: "still here" } },
      never(),
    );
    expect(echo.ok).toBe(true);
  });

  it("exit-mid-call: the pending call fails at once with -32000 and the exit code is reported", async () => {
    const { transport, closes } = start("exit-mid-call");
    await initialize(transport);
    const response = await transport.request("tools/call", { name: "exit" }, never());
    expect(response).toEqual({
      ok: false,
      error: {
        code: MCP_ERROR_CODES.connectionClosed,
        message: "connection closed (exited): the server exited with code 3",
      },
    });
    expect(closes).toEqual([{ kind: "exited", message: "the server exited with code 3" }]);
    // Fails fast: the request has no timeout, so without that it would wait forever.
    expect(await transport.request("tools/list", {}, never())).toMatchObject({
      ok: false,
      error: { code: MCP_ERROR_CODES.connectionClosed },
    });
    expect(transport.diagnostics()).toMatchObject({ exitCode: 3, exitSignal: null });
  });

  it("ignore-sigterm: close() escalates to SIGKILL of the whole group within its bound", async () => {
    const { transport, records, recorded } = start("ignore-sigterm", { closeTimeoutMs: 1000 });
    await initialize(transport);
    const grandchild = (await recorded("grandchild")).pid as number;
    const tree = processTreeOf(transport.pid() as number);
    expect(tree).toContain(grandchild);
    const started = Date.now();
    await transport.close();
    // SIGTERM was given its time; then the escalation (asserted below) ended the group.
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    expect(transport.diagnostics()).toMatchObject({ closeEscalation: "sigkill", exitSignal: "SIGKILL" });
    expect(records().some((record) => record.event === "sigterm-ignored")).toBe(true);
    await assertNoProcessesAlive(tree, 1000);
  });

  it("noisy-stdout: banners and garbage are skipped, counted and escaped", async () => {
    const { transport } = start("noisy-stdout");
    await initialize(transport);
    const echo = await transport.request(
      "tools/call",
      { name: "echo", arguments: { message: "hi" } },
      never(),
    );
    expect(echo.ok).toBe(true);
    await delay(60);
    const { skippedLines, skippedLineSamples } = transport.diagnostics();
    expect(skippedLines).toBeGreaterThanOrEqual(6);
    expect(skippedLineSamples).toHaveLength(5);
    expect(skippedLineSamples).toContain("\\x1b[32mREADY\\x1b[0m listening on stdio");
    expect(skippedLineSamples.join("")).not.toContain("\u001b");
  });

  it("flood-stderr: megabytes of stderr neither block the server nor grow the buffer", async () => {
    const { transport } = start("flood-stderr", {
      stderrBufferBytes: 16 * 1024,
      env: { MCP_TESTING_STDERR_BYTES: "8388608" },
    });
    await initialize(transport);
    const flood = await transport.request(
      "tools/call",
      { name: "flood", arguments: { bytes: 2 * 1024 * 1024 } },
      never(),
    );
    expect(flood.ok).toBe(true);
    const tail = transport.stderrTail();
    expect(transport.diagnostics().stderrBytes).toBeGreaterThan(10_000_000);
    // Escaping turns each ESC byte into four characters; the kept bytes stay at 16 KiB.
    expect(tail.length).toBeLessThan(16 * 1024 * 1.2);
    expect(tail).not.toContain("\u001b");
    expect(tail).toContain("flood \\x1b[31mred\\x1b[0m");
  });

  it("huge-message: a message over maxMessageBytes closes the connection as a protocol violation", async () => {
    const { transport, closes } = start("huge-message", { maxMessageBytes: 1024 * 1024 });
    await initialize(transport);
    const fits = await transport.request(
      "tools/call",
      { name: "huge", arguments: { bytes: 500_000 } },
      never(),
    );
    expect(fits.ok).toBe(true);
    const tree = processTreeOf(transport.pid() as number);
    const response = await transport.request(
      "tools/call",
      { name: "huge", arguments: { bytes: 8 * 1024 * 1024 } },
      never(),
    );
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(closes).toHaveLength(1);
    expect(closes[0]?.kind).toBe("protocol");
    expect(closes[0]?.message).toContain("more than 1048576 bytes (maxMessageBytes");
    // Nobody called close(): the transport ends the server itself...
    await assertNoProcessesAlive(tree, 2000);
    // ...and a close() after that waits for the same teardown.
    await transport.close();
    expect(tree.filter(isProcessAlive)).toEqual([]);
  });

  it("schema-change: list_changed arrives, and a re-list may still show the old schema for a while", async () => {
    const { transport, recorded } = start("schema-change");
    const notifications: string[] = [];
    transport.onNotification((notification) => notifications.push(notification.method));
    await initialize(transport);
    const schemaOf = async () => {
      const list = await transport.request("tools/list", {}, never());
      const tools = list.ok ? (list.result as { tools: { name: string; inputSchema: unknown }[] }).tools : [];
      return tools.find((tool) => tool.name === "search")?.inputSchema as { required: string[] };
    };
    expect((await schemaOf()).required).toEqual(["query"]);
    await transport.request(
      "tools/call",
      { name: "change-schema", arguments: { notify: "before", delayMs: 200 } },
      never(),
    );
    await waitFor(() => notifications.includes("notifications/tools/list_changed"));
    expect((await schemaOf()).required).toEqual(["query"]);
    await recorded("schema-changed");
    expect((await schemaOf()).required).toEqual(["query", "limit"]);
  });
});
