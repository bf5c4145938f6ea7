import { MCP_ERROR_CODES, McpTransportError } from "@agent/mcp-transport";
import { createSdkTransport } from "@agent/mcp-transport/sdk";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { closeAfterTest, delay, INITIALIZE_PARAMS, initialize, never, waitFor } from "./helpers.js";

interface Harness {
  server: Server;
  transport: ReturnType<typeof createSdkTransport>;
  /** Messages the client put on the wire. */
  sent: JSONRPCMessage[];
  /** Request ids whose handler saw its signal abort (the server got `notifications/cancelled`). */
  cancelled: unknown[];
  /** Notification methods the server received. */
  notifications: string[];
  closeServerSide: () => Promise<void>;
}

// An in-process SDK server over linked in-memory transports: fast, and the real JSON-RPC machinery.
async function harness(): Promise<Harness> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  const send = clientSide.send.bind(clientSide);
  clientSide.send = (message, options) => {
    sent.push(message);
    return send(message, options);
  };
  const cancelled: unknown[] = [];
  const notifications: string[] = [];
  const server = new Server(
    { name: "in-memory", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    extra.signal.addEventListener("abort", () => cancelled.push(extra.requestId));
    const token = extra._meta?.progressToken;
    if (request.params.name === "echo") return { content: [{ type: "text", text: "echo" }] };
    // "slow": progress every 20 ms, until cancelled or after 2 s.
    for (let step = 1; step <= 100 && !extra.signal.aborted; step += 1) {
      await delay(20);
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: step, total: 100, message: `step ${step}` },
        });
      }
    }
    return { content: [] };
  });
  server.fallbackNotificationHandler = async (notification) => {
    notifications.push(notification.method);
  };
  await server.connect(serverSide);
  const transport = closeAfterTest(createSdkTransport(clientSide, { closeTimeoutMs: 1000 }));
  return { server, transport, sent, cancelled, notifications, closeServerSide: () => serverSide.close() };
}

describe("createSdkTransport", () => {
  it("round-trips requests and passes the server's JSON-RPC errors through", async () => {
    const { transport } = await harness();
    const init = await initialize(transport);
    expect(init).toMatchObject({ protocolVersion: "2025-06-18", serverInfo: { name: "in-memory" } });
    expect(await transport.request("tools/list", {}, never())).toEqual({ ok: true, result: { tools: [] } });
    const missing = await transport.request("no/such/method", {}, never());
    expect(missing).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.methodNotFound } });
  });

  it("resolves an aborted request with the cancelled code and tells the server which request", async () => {
    const { transport, sent, cancelled } = await harness();
    await initialize(transport);
    const controller = new AbortController();
    const progress: number[] = [];
    const pending = transport.request(
      "tools/call",
      { name: "slow" },
      { signal: controller.signal, onProgress: (update) => progress.push(update.progress) },
    );
    await waitFor(() => progress.length >= 2);
    controller.abort();
    expect(await pending).toEqual({
      ok: false,
      error: { code: MCP_ERROR_CODES.cancelled, message: "request cancelled" },
    });
    const call = sent.find((message) => "method" in message && message.method === "tools/call");
    const id = call && "id" in call ? call.id : undefined;
    expect(sent).toContainEqual(
      expect.objectContaining({
        method: "notifications/cancelled",
        params: expect.objectContaining({ requestId: id }),
      }),
    );
    await waitFor(() => cancelled.includes(id));
    const seen = progress.length;
    await delay(100);
    expect(progress.length).toBe(seen);
  });

  it("takes any object with aborted and abort listeners as the signal, and cancels through it", async () => {
    const { transport, cancelled } = await harness();
    await initialize(transport);
    // What @agent/tools hands a remote tool as context.cancellation: no AbortSignal behind it.
    const listeners = new Set<() => void>();
    const cancellation = {
      aborted: false,
      addEventListener: (_type: "abort", listener: () => void) => listeners.add(listener),
      removeEventListener: (_type: "abort", listener: () => void) => listeners.delete(listener),
    };
    const pending = transport.request("tools/call", { name: "slow" }, { signal: cancellation });
    await delay(30);
    cancellation.aborted = true;
    for (const listener of [...listeners]) listener();
    expect(await pending).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    await waitFor(() => cancelled.length === 1);
    expect(listeners.size).toBe(0);
  });

  it("refuses a context whose signal has no abort listeners, as misuse", async () => {
    const { transport } = await harness();
    const signal = { aborted: false } as unknown as AbortSignal;
    await expect(transport.request("tools/list", {}, { signal })).rejects.toBeInstanceOf(McpTransportError);
  });

  it("resolves a request that outlives timeoutMs with the timeout code and cancels it on the server", async () => {
    const { transport, cancelled } = await harness();
    await initialize(transport);
    const response = await transport.request(
      "tools/call",
      { name: "slow" },
      { signal: never(), timeoutMs: 100 },
    );
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.timeout } });
    await waitFor(() => cancelled.length === 1);
  });

  it("sends nothing for a signal that is already aborted", async () => {
    const { transport, sent } = await harness();
    const response = await transport.request("tools/list", {}, AbortSignal.abort());
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    expect(sent).toEqual([]);
  });

  it("does not cancel a request whose answer already arrived", async () => {
    const { transport, sent } = await harness();
    await initialize(transport);
    const controller = new AbortController();
    expect(await transport.request("tools/call", { name: "echo" }, controller.signal)).toMatchObject({
      ok: true,
    });
    controller.abort();
    await delay(20);
    expect(sent.some((message) => "method" in message && message.method === "notifications/cancelled")).toBe(
      false,
    );
  });

  it("never sends notifications/cancelled for initialize (the MCP spec forbids it)", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const received: JSONRPCMessage[] = [];
    serverSide.onmessage = (message) => received.push(message);
    await serverSide.start();
    const transport = closeAfterTest(createSdkTransport(clientSide));
    const response = await transport.request("initialize", INITIALIZE_PARAMS, {
      signal: never(),
      timeoutMs: 50,
    });
    expect(response).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.timeout } });
    await delay(20);
    expect(received.map((message) => ("method" in message ? message.method : "response"))).toEqual([
      "initialize",
    ]);
  });

  it("sends notifications without an id and delivers the server's notifications", async () => {
    const { server, transport, notifications } = await harness();
    const seen: string[] = [];
    transport.onNotification((notification) => seen.push(notification.method));
    await initialize(transport);
    expect(await transport.notify("notifications/roots/list_changed")).toEqual({ ok: true });
    await waitFor(() => notifications.includes("notifications/roots/list_changed"));
    await server.sendToolListChanged();
    await waitFor(() => seen.includes("notifications/tools/list_changed"));
  });

  it("answers the server's ping and refuses requests for capabilities it does not declare", async () => {
    const { server, transport } = await harness();
    await initialize(transport);
    await expect(server.ping()).resolves.toEqual({});
    for (const method of ["roots/list", "sampling/createMessage", "elicitation/create"]) {
      await expect(server.request({ method, params: {} }, ResultSchema)).rejects.toMatchObject({
        code: MCP_ERROR_CODES.methodNotFound,
      });
    }
  });

  it("answers the server's requests with the registered handler, errors included, until it is removed", async () => {
    const { server, transport } = await harness();
    const remove = transport.onRequest("roots/list", async () => ({
      ok: true,
      result: { roots: [{ uri: "file:///work" }] },
    }));
    transport.onRequest("elicitation/create", async () => ({
      ok: false,
      error: { code: MCP_ERROR_CODES.invalidParams, message: "bad form" },
    }));
    await initialize(transport);
    await expect(server.request({ method: "roots/list", params: {} }, ResultSchema)).resolves.toEqual({
      roots: [{ uri: "file:///work" }],
    });
    await expect(
      server.request({ method: "elicitation/create", params: {} }, ResultSchema),
    ).rejects.toMatchObject({
      code: MCP_ERROR_CODES.invalidParams,
    });
    remove();
    await expect(server.request({ method: "roots/list", params: {} }, ResultSchema)).rejects.toMatchObject({
      code: MCP_ERROR_CODES.methodNotFound,
    });
  });

  it("fails pending and later requests at once when the server side closes", async () => {
    const { transport, closeServerSide } = await harness();
    await initialize(transport);
    const reasons: string[] = [];
    transport.onClose((reason) => reasons.push(reason.kind));
    const pending = transport.request("tools/call", { name: "slow" }, never());
    await delay(30);
    await closeServerSide();
    expect(await pending).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(reasons).toEqual(["lost"]);
    expect(await transport.request("tools/list", {}, never())).toMatchObject({
      ok: false,
      error: { code: MCP_ERROR_CODES.connectionClosed },
    });
    expect(await transport.notify("notifications/initialized")).toMatchObject({ ok: false });
  });

  it("closes idempotently: pending requests resolve, close listeners fire once with kind client", async () => {
    const { transport } = await harness();
    await initialize(transport);
    const reasons: string[] = [];
    transport.onClose((reason) => reasons.push(reason.kind));
    transport.onClose(() => {
      throw new Error("a listener that throws must not break the others");
    });
    const pending = transport.request("tools/call", { name: "slow" }, never());
    await Promise.all([transport.close(), transport.close()]);
    await transport.close();
    expect(await pending).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    expect(reasons).toEqual(["client"]);
    const late = await new Promise((resolve) => transport.onClose(resolve));
    expect(late).toMatchObject({ kind: "client" });
  });

  it("throws McpTransportError for misuse", async () => {
    const { transport } = await harness();
    await expect(transport.request("", {}, never())).rejects.toBeInstanceOf(McpTransportError);
    await expect(transport.request("tools/list", [1, 2], never())).rejects.toMatchObject({
      code: "invalid_argument",
    });
    await expect(
      transport.request("tools/list", {}, { signal: never(), timeoutMs: Number.NaN }),
    ).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(transport.request("tools/list", {}, {} as never)).rejects.toMatchObject({
      code: "invalid_argument",
    });
  });

  it("sees a progress notification that arrives in one read with the result: the bar reaches 100%", async () => {
    // A wire that answers a request the way a loaded stdio pipe does: the server's last progress
    // notifications and its result parsed in the same turn of the event loop.
    const wire: Transport = {
      async start() {},
      async close() {
        wire.onclose?.();
      },
      async send(message) {
        if (!("id" in message) || !("method" in message)) return;
        const token = (message.params?._meta as { progressToken?: number } | undefined)?.progressToken;
        for (const step of [1, 2, 3, 4]) {
          wire.onmessage?.({
            jsonrpc: "2.0",
            method: "notifications/progress",
            params: { progressToken: token, progress: step, total: 4 },
          });
        }
        wire.onmessage?.({ jsonrpc: "2.0", id: message.id, result: { content: [] } });
      },
    };
    const transport = closeAfterTest(createSdkTransport(wire, { closeTimeoutMs: 1000 }));
    const progress: number[] = [];
    const response = await transport.request(
      "tools/call",
      { name: "long" },
      { signal: never(), onProgress: (update) => progress.push(update.progress) },
    );
    expect(response).toEqual({ ok: true, result: { content: [] } });
    expect(progress).toEqual([1, 2, 3, 4]);
  });
});
