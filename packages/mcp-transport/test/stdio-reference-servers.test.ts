import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { MCP_ERROR_CODES, type McpProgress } from "@agent/mcp-transport";
import { createSdkTransport } from "@agent/mcp-transport/sdk";
import { StdioProcessTransport } from "@agent/mcp-transport/stdio";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { assertNoProcessesAlive, processTreeOf } from "../../mcp-testing/src/servers/index.js";
import {
  closeAfterTest,
  delay,
  EVERYTHING_ENTRY,
  FILESYSTEM_ENTRY,
  initialize,
  never,
  temporaryDirectory,
  waitFor,
} from "./helpers.js";

// server-everything over our stdio transport, with the wire visible: every message we send is kept.
function everything() {
  const processTransport = new StdioProcessTransport({
    command: process.execPath,
    args: [EVERYTHING_ENTRY, "stdio"],
    closeTimeoutMs: 2000,
  });
  const sent: JSONRPCMessage[] = [];
  const send = processTransport.send.bind(processTransport);
  processTransport.send = (message) => {
    sent.push(message);
    return send(message);
  };
  const transport = closeAfterTest(
    createSdkTransport(processTransport, { describeClose: () => processTransport.closeReason }),
  );
  const noise: string[] = [];
  transport.onError((error) => noise.push(error.message));
  return { transport, processTransport, sent, noise };
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? "").join("");
}

describe("stdio against server-everything", () => {
  it("initializes, lists tools, calls a tool and hears list_changed", async () => {
    const { transport } = everything();
    const notifications: string[] = [];
    transport.onNotification((notification) => notifications.push(notification.method));
    const init = await initialize(transport);
    expect(init).toMatchObject({
      serverInfo: { name: "mcp-servers/everything" },
      capabilities: { tools: {} },
    });
    const list = await transport.request("tools/list", {}, never());
    expect(list.ok).toBe(true);
    const names = (list.ok ? (list.result as { tools: { name: string }[] }).tools : []).map(
      (tool) => tool.name,
    );
    expect(names).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation"]));
    const sum = await transport.request(
      "tools/call",
      { name: "get-sum", arguments: { a: 2, b: 40 } },
      never(),
    );
    expect(sum.ok && textOf(sum.result)).toContain("42");
    await waitFor(() => notifications.includes("notifications/tools/list_changed"));
  });

  it("cancels the long-running operation mid-way: -32800, progress stops, the server drops its answer", async () => {
    const { transport, sent, noise } = everything();
    await initialize(transport);
    const controller = new AbortController();
    const progress: McpProgress[] = [];
    const response = await transport.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 1, steps: 10 } },
      {
        signal: controller.signal,
        onProgress: (update) => {
          progress.push(update);
          if (progress.length === 2) controller.abort();
        },
      },
    );
    expect(response).toEqual({
      ok: false,
      error: { code: MCP_ERROR_CODES.cancelled, message: "request cancelled" },
    });
    expect(progress).toEqual([
      { progress: 1, total: 10 },
      { progress: 2, total: 10 },
    ]);
    const call = sent.find((message) => "method" in message && message.method === "tools/call");
    const callId = call && "id" in call ? call.id : undefined;
    expect(sent).toContainEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: callId, reason: "cancelled by the client" },
    });
    // server-everything keeps running the loop and reporting progress for the cancelled token (8 more
    // steps); once they all arrived the operation is over, and the SDK server, having seen
    // notifications/cancelled, sent no result: no response to an unknown id shows up.
    const lateProgress = () => noise.filter((message) => message.includes("unknown token")).length;
    await waitFor(() => lateProgress() === 8);
    await delay(100);
    expect(progress).toHaveLength(2);
    expect(noise.filter((message) => message.includes("unknown message ID"))).toEqual([]);
  });

  it("resolves with -32001 when timeoutMs passes, and cancels the call on the server", async () => {
    const { transport, sent } = everything();
    await initialize(transport);
    const response = await transport.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 } },
      { signal: never(), timeoutMs: 200 },
    );
    // The request's own bound answered (its message names it), not the 5 s operation.
    expect(response).toEqual({
      ok: false,
      error: { code: MCP_ERROR_CODES.timeout, message: "request timed out after 200 ms" },
    });
    expect(
      sent.filter((message) => "method" in message && message.method === "notifications/cancelled"),
    ).toHaveLength(1);
  });

  it("passes a minimal environment: no parent secret reaches the server", async () => {
    process.env.MCP_TRANSPORT_TEST_PARENT_SECRET = "parent-secret-value";
    try {
      const { transport, processTransport } = everything();
      await initialize(transport);
      const response = await transport.request("tools/call", { name: "get-env", arguments: {} }, never());
      const env = JSON.parse(response.ok ? textOf(response.result) : "{}") as Record<string, string>;
      expect(env.MCP_TRANSPORT_TEST_PARENT_SECRET).toBeUndefined();
      expect(
        Object.keys(env).every((name) => ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"].includes(name)),
      ).toBe(true);
      const pid = processTransport.pid as number;
      const tree = processTreeOf(pid);
      await transport.close();
      await assertNoProcessesAlive(tree);
    } finally {
      delete process.env.MCP_TRANSPORT_TEST_PARENT_SECRET;
    }
  });
});

describe("stdio against server-filesystem", () => {
  it("reads a file inside the allowed directory and refuses one outside", async () => {
    const directory = temporaryDirectory();
    writeFileSync(join(directory, "hello.txt"), "hello from disk");
    const processTransport = new StdioProcessTransport({
      command: process.execPath,
      args: [FILESYSTEM_ENTRY, directory],
    });
    const transport = closeAfterTest(createSdkTransport(processTransport));
    await initialize(transport);
    const read = await transport.request(
      "tools/call",
      { name: "read_text_file", arguments: { path: join(directory, "hello.txt") } },
      never(),
    );
    expect(read.ok && textOf(read.result)).toBe("hello from disk");
    const outside = await transport.request(
      "tools/call",
      { name: "read_text_file", arguments: { path: "/etc/hostname" } },
      never(),
    );
    // A refusal is a tool result with isError, not a transport failure.
    expect(outside).toMatchObject({ ok: true, result: { isError: true } });
  });
});
