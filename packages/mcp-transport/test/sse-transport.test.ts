import { MCP_ERROR_CODES, type McpCloseReason, McpTransportError } from "@agent/mcp-transport";
import { createSseTransport, type SseTransportOptions } from "@agent/mcp-transport/http";
import { describe, expect, it, onTestFinished } from "vitest";
// By path, not by package: @agent/mcp-testing depends on this package.
import {
  legacyServerPath,
  sseServerPath,
  startLoopbackHttpServer,
} from "../../mcp-testing/src/servers/index.js";
import { closeAfterTest, initialize, never, waitFor } from "./helpers.js";

async function startSseServer(script = sseServerPath(), args: string[] = []) {
  const server = await startLoopbackHttpServer(script, args, { path: "/sse" });
  onTestFinished(server.kill);
  return server;
}

function connect(url: string, options: Partial<SseTransportOptions> = {}) {
  const posts: unknown[] = [];
  const transport = closeAfterTest(
    createSseTransport({
      url,
      closeTimeoutMs: 1000,
      ...options,
      fetch: (input, init) => {
        if (init?.method === "POST" && typeof init.body === "string") posts.push(JSON.parse(init.body));
        return fetch(input, init);
      },
    }),
  );
  const closes: McpCloseReason[] = [];
  transport.onClose((reason) => closes.push(reason));
  return { transport, posts, closes };
}

const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });

describe("legacy HTTP+SSE against the SDK's own SSEServerTransport", () => {
  it("initializes, calls tools and sends the configured headers on the stream and the posts", async () => {
    const server = await startSseServer();
    const { transport } = connect(server.url, { headers: { Authorization: "Bearer sse-secret-123" } });
    await initialize(transport);
    const echo = await transport.request("tools/call", call("echo", { message: "over sse" }), never());
    expect(echo).toMatchObject({
      ok: true,
      result: { content: [{ type: "text", text: '{"message":"over sse"}' }] },
    });
    const whoami = await transport.request("tools/call", call("whoami"), never());
    expect(JSON.stringify(whoami)).toContain("Bearer sse-secret-123");
  });

  it("cancels a request: the server is told, the caller gets -32800 at once", async () => {
    const server = await startSseServer();
    const { transport, posts } = connect(server.url);
    await initialize(transport);
    const controller = new AbortController();
    const pending = transport.request("tools/call", call("slow", { ms: 60_000 }), controller.signal);
    await waitFor(() => posts.some((post) => (post as { method?: string }).method === "tools/call"));
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    await waitFor(() =>
      posts.some((post) => (post as { method?: string }).method === "notifications/cancelled"),
    );
  });

  it("closes the connection as a protocol violation when an event exceeds maxResponseBytes", async () => {
    const server = await startSseServer();
    const { transport, closes } = connect(server.url, { maxResponseBytes: 3000 });
    await initialize(transport);
    const response = await transport.request("tools/call", call("huge", { bytes: 10_000 }), never());
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(closes).toEqual([{ kind: "protocol", message: expect.stringMatching(/more than 3000 bytes/) }]);
  });

  it("treats the end of the event stream as a lost connection, not a silent new session", async () => {
    const server = await startSseServer();
    const { transport, closes } = connect(server.url);
    await initialize(transport);
    await transport.request("tools/call", call("drop"), never());
    await waitFor(() => closes.length > 0);
    expect(closes[0]?.kind).toBe("lost");
    const after = await transport.request("tools/list", {}, never());
    expect(after).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
  });

  it("keeps credentials out of every message", async () => {
    // Nothing listens on port 9: the failure message names the URL without its query.
    const { transport, closes } = connect("http://127.0.0.1:9/sse?token=sse-query-secret", {
      headers: { "X-Api-Key": "sse-header-secret" },
    });
    const response = await transport.request("tools/list", {}, never());
    expect(response.ok).toBe(false);
    await waitFor(() => closes.length > 0);
    const text = JSON.stringify({ response, closes });
    expect(text).not.toContain("sse-query-secret");
    expect(text).not.toContain("sse-header-secret");
  });

  it("refuses a URL with credentials in it", () => {
    expect(() => createSseTransport({ url: "http://user:pw@127.0.0.1/sse" })).toThrow(McpTransportError);
  });

  it("speaks to a 2024-11-05 server on the old SDK", async () => {
    const server = await startSseServer(legacyServerPath(), ["sse"]);
    const { transport } = connect(server.url);
    const result = await initialize(transport);
    expect(result.protocolVersion).toBe("2024-11-05");
    const echo = await transport.request("tools/call", call("echo", { message: "old" }), never());
    expect(echo).toMatchObject({ ok: true, result: { content: [{ type: "text", text: "old" }] } });
  });
});
