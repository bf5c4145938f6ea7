import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MCP_ERROR_CODES, type McpCloseReason, McpTransportError } from "@agent/mcp-transport";
import {
  createStreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from "@agent/mcp-transport/http";
import { describe, expect, it, onTestFinished } from "vitest";
import { closeAfterTest, initialize, never, waitFor } from "./helpers.js";
import { startEverythingHttp } from "./http-server.js";

interface WireRecord {
  method: string;
  body: unknown;
  sessionId: string | null;
}

// Records every HTTP request the SDK makes, to check what went over the wire.
function connect(url: string, options: Partial<StreamableHttpTransportOptions> = {}) {
  const wire: WireRecord[] = [];
  const transport = closeAfterTest(
    createStreamableHttpTransport({
      url,
      closeTimeoutMs: 1000,
      ...options,
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        const body = typeof init?.body === "string" ? JSON.parse(init.body) : undefined;
        wire.push({ method: init?.method ?? "GET", body, sessionId: headers.get("mcp-session-id") });
        return fetch(input, init);
      },
    }),
  );
  const closes: McpCloseReason[] = [];
  transport.onClose((reason) => closes.push(reason));
  return { transport, wire, closes };
}

describe("Streamable HTTP against server-everything", () => {
  it("initializes with a session, calls tools, cancels, and ends the session on close", async () => {
    const server = await startEverythingHttp();
    const { transport, wire } = connect(server.url);
    const notifications: string[] = [];
    transport.onNotification((notification) => notifications.push(notification.method));
    await initialize(transport);
    const sessionId = transport.sessionId();
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const list = await transport.request("tools/list", {}, never());
    expect(list.ok && (list.result as { tools: unknown[] }).tools.length).toBeGreaterThan(5);
    const echo = await transport.request(
      "tools/call",
      { name: "echo", arguments: { message: "over http" } },
      never(),
    );
    expect(echo).toMatchObject({
      ok: true,
      result: { content: [{ type: "text", text: "Echo: over http" }] },
    });
    // Notifications outside a request travel on the standalone GET stream the SDK opens after initialized.
    await waitFor(() => wire.some((record) => record.method === "GET"));
    await transport.request("tools/call", { name: "toggle-simulated-logging", arguments: {} }, never());
    await waitFor(() => notifications.includes("notifications/message"));

    const controller = new AbortController();
    let progressCount = 0;
    const cancelled = transport.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 2, steps: 20 } },
      {
        signal: controller.signal,
        onProgress: () => {
          progressCount += 1;
          if (progressCount === 2) controller.abort();
        },
      },
    );
    expect(await cancelled).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    const call = wire.find(
      (record) =>
        (record.body as { params?: { name?: string } })?.params?.name === "trigger-long-running-operation",
    );
    const callId = (call?.body as { id: number } | undefined)?.id;
    await waitFor(() =>
      wire.some(
        (record) =>
          (record.body as { method?: string })?.method === "notifications/cancelled" &&
          (record.body as { params: { requestId: number } }).params.requestId === callId,
      ),
    );
    // The era probe (server/discover, which this 2025-era server refuses) and initialize go without a
    // session; every later POST carries the one the handshake created.
    const posts = wire.filter((record) => record.method === "POST");
    expect(posts.slice(0, 2).map((record) => (record.body as { method?: string }).method)).toEqual([
      "server/discover",
      "initialize",
    ]);
    expect(posts.slice(2).every((record) => record.sessionId === sessionId)).toBe(true);
    expect(transport.era()).toEqual({ kind: "handshake" });

    const timedOut = await transport.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 5, steps: 5 } },
      { signal: never(), timeoutMs: 200 },
    );
    expect(timedOut).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.timeout } });

    await transport.close();
    expect(wire.at(-1)).toMatchObject({ method: "DELETE", sessionId });
  });

  it("closes the connection as a protocol violation when a response exceeds maxResponseBytes", async () => {
    const server = await startEverythingHttp();
    const { transport, closes } = connect(server.url, { maxResponseBytes: 3000 });
    await initialize(transport);
    const list = await transport.request("tools/list", {}, never());
    expect(list).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(closes).toEqual([
      { kind: "protocol", message: expect.stringMatching(/3000-byte limit \(maxResponseBytes\)/) },
    ]);
  });

  it("fails pending and later requests at once when the server dies", async () => {
    const server = await startEverythingHttp();
    const { transport, closes } = connect(server.url);
    await initialize(transport);
    const pending = transport.request(
      "tools/call",
      { name: "trigger-long-running-operation", arguments: { duration: 10, steps: 10 } },
      never(),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.kill();
    // The server is dead and the call has no timeout of its own: resolving at all is the fast failure.
    expect(await pending).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(closes.map((reason) => reason.kind)).toEqual(["lost"]);
    expect(await transport.request("tools/list", {}, never())).toMatchObject({
      ok: false,
      error: { code: MCP_ERROR_CODES.connectionClosed },
    });
    await expect(transport.close()).resolves.toBeUndefined();
  });
});

describe("Streamable HTTP credentials", () => {
  const TOKEN = "sekret-bearer-token-1234";
  const QUERY_KEY = "sekret-query-key-5678";

  // A loopback server that echoes the request's URL and Authorization header in an HTTP 500 body.
  async function echoingServer(): Promise<string> {
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      response.writeHead(500, { "content-type": "text/plain" });
      response.end(`failed ${request.url} authorization=${request.headers.authorization}`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp?api_key=${QUERY_KEY}`;
  }

  // A loopback port nobody listens on (any more).
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  it("never shows header or query credentials in responses, close reasons or errors", async () => {
    const url = await echoingServer();
    const { transport, closes } = connect(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const errors: string[] = [];
    transport.onError((error) => errors.push(error.message));
    const response = await transport.request("initialize", {}, never());
    expect(response).toMatchObject({
      ok: false,
      error: { code: MCP_ERROR_CODES.connectionClosed, data: { httpStatus: 500 } },
    });
    expect(response.ok ? "" : response.error.message).toContain("authorization=[redacted]");
    await transport.close();
    const everything = JSON.stringify({ response, closes, errors });
    expect(everything).not.toContain(TOKEN);
    expect(everything).not.toContain(QUERY_KEY);
  });

  it("reports an unreachable server as lost, without the URL's query", async () => {
    const unreachable = `http://127.0.0.1:${await closedPort()}/mcp?api_key=${QUERY_KEY}`;
    const { transport, closes } = connect(unreachable, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const response = await transport.request("initialize", {}, never());
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(closes).toHaveLength(1);
    expect(closes[0]?.kind).toBe("lost");
    expect(closes[0]?.message).toContain("ECONNREFUSED");
    expect(JSON.stringify({ response, closes })).not.toContain(QUERY_KEY);
  });

  it("refuses credentials in the URL's userinfo, without echoing them", () => {
    const attempt = () => createStreamableHttpTransport({ url: `http://user:${TOKEN}@127.0.0.1:1/mcp` });
    expect(attempt).toThrow(McpTransportError);
    expect(attempt).toThrow(/must not contain credentials/);
    try {
      attempt();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain(TOKEN);
    }
  });
});
