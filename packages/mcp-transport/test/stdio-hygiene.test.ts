import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MCP_ERROR_CODES, type McpCloseReason } from "@agent/mcp-transport";
import { createStdioTransport } from "@agent/mcp-transport/stdio";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, it } from "vitest";
import {
  assertNoProcessesAlive,
  isProcessAlive,
  processGroupMembers,
  processTreeOf,
  readRecordFile,
  testServerCommand,
} from "../../mcp-testing/src/servers/index.js";
import { closeAfterTest, initialize, never, temporaryDirectory, waitFor } from "./helpers.js";

function textOf(result: unknown): string {
  return ((result as { content: { text: string }[] }).content[0] as { text: string }).text;
}

describe("stdio hygiene", () => {
  it("gives the server the safe defaults plus exactly the caller's variables", async () => {
    process.env.MCP_TRANSPORT_TEST_PARENT_SECRET = "parent-secret-value";
    try {
      const transport = closeAfterTest(
        createStdioTransport({
          ...testServerCommand("scriptable"),
          env: { SERVER_TOKEN: "server-token-123" },
        }),
      );
      await initialize(transport);
      const response = await transport.request("tools/call", { name: "env", arguments: {} }, never());
      const env = JSON.parse(response.ok ? textOf(response.result) : "{}") as Record<string, string>;
      expect(env).toEqual({ ...getDefaultEnvironment(), SERVER_TOKEN: "server-token-123" });
      // Cross-check with what the kernel says the process was started with.
      const environ = readFileSync(`/proc/${transport.pid()}/environ`, "utf8").split("\0").filter(Boolean);
      expect(environ.some((entry) => entry.startsWith("MCP_TRANSPORT_TEST_PARENT_SECRET="))).toBe(false);
    } finally {
      delete process.env.MCP_TRANSPORT_TEST_PARENT_SECRET;
    }
  });

  it("keeps the caller's env values out of messages, even when the server echoes them", async () => {
    const transport = closeAfterTest(
      createStdioTransport({ ...testServerCommand("scriptable"), env: { SERVER_TOKEN: "server-token-123" } }),
    );
    await initialize(transport);
    const response = await transport.request("tools/call", { name: "server-token-123" }, never());
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.invalidParams } });
    expect(JSON.stringify(response)).not.toContain("server-token-123");
    expect(JSON.stringify(response)).toContain("[redacted]");
  });

  it("reports a command that cannot start as a closed connection, without throwing", async () => {
    const transport = closeAfterTest(createStdioTransport({ command: "/nonexistent/mcp-server-binary" }));
    const closes: McpCloseReason[] = [];
    transport.onClose((reason) => closes.push(reason));
    const response = await transport.request("initialize", {}, never());
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(response.ok ? "" : response.error.message).toContain("ENOENT (command not found");
    expect(closes).toHaveLength(1);
    expect(closes[0]?.kind).toBe("exited");
    expect(await transport.notify("notifications/initialized")).toMatchObject({ ok: false });
    await transport.close();
    // Nothing to stop: no step of the close escalation was needed.
    expect(transport.diagnostics().closeEscalation).toBe("none");
  });

  it("cancels the scriptable slow tool: progress stops and the server records the request id", async () => {
    const recordFile = join(temporaryDirectory(), "records.jsonl");
    const transport = closeAfterTest(
      createStdioTransport({
        ...testServerCommand("scriptable"),
        env: { MCP_TESTING_RECORD_FILE: recordFile },
      }),
    );
    await initialize(transport);
    const controller = new AbortController();
    const progress: number[] = [];
    const pending = transport.request(
      "tools/call",
      { name: "slow" },
      { signal: controller.signal, onProgress: (update) => progress.push(update.progress) },
    );
    await waitFor(() => progress.length >= 3);
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    const cancelled = await waitFor(() =>
      readRecordFile(recordFile).find((record) => record.event === "cancelled"),
    );
    const reported = readRecordFile(recordFile).filter((record) => record.event === "progress");
    expect(cancelled).toMatchObject({ tool: "slow", requestId: reported[0]?.requestId });
    // The server stopped at once: no progress was produced after the cancellation.
    expect(reported.length).toBeLessThanOrEqual(progress.length + 1);
  });

  it("closes a well-behaved server by closing stdin, and leaves nothing running", async () => {
    const transport = createStdioTransport({ ...testServerCommand("scriptable") });
    await initialize(transport);
    const tree = processTreeOf(transport.pid() as number);
    await transport.close();
    expect(transport.diagnostics()).toMatchObject({ closeEscalation: "stdin", exitCode: 0 });
    expect(transport.closeReason()).toEqual({ kind: "client", message: "closed by the client" });
    await assertNoProcessesAlive(tree);
  });

  it("can be closed right after creation, before the server has started", async () => {
    const transport = createStdioTransport({ ...testServerCommand("ignore-sigterm"), closeTimeoutMs: 600 });
    const pid = transport.pid() as number;
    await transport.close();
    expect(isProcessAlive(pid)).toBe(false);
    await waitFor(() => processGroupMembers(pid).length === 0, 1000);
    const late = await transport.request("tools/list", {}, never());
    expect(late).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
  });
});

describe("credentials in a server's stderr", () => {
  it("are redacted from the kept stderr tail", async () => {
    const secret = "sk-verysecret-123";
    const transport = closeAfterTest(
      createStdioTransport({
        command: process.execPath,
        args: [
          "-e",
          "process.stderr.write('starting with key=' + process.env.API_KEY + '\\n'); setInterval(() => {}, 1000);",
        ],
        env: { API_KEY: secret },
      }),
    );
    const tail = await waitFor(() =>
      transport.stderrTail().includes("starting") ? transport.stderrTail() : undefined,
    );
    expect(tail).toContain("key=[redacted]");
    expect(tail).not.toContain(secret);
  });
});
