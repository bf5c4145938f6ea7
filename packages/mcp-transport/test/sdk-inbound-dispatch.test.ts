/** What the server sends unasked, routed: notifications to listeners, requests to handlers, noise to errors. */
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "../src/errors.js";
import { attachInboundDispatch } from "../src/sdk/inbound-dispatch.js";
import { RawProtocol } from "../src/sdk/raw-protocol.js";
import { MCP_ERROR_CODES, type McpCloseReason, type McpNotification } from "../src/transport.js";
import { waitFor } from "./helpers.js";
import { linkedPeer } from "./in-memory-peer.js";

async function dispatchOverPeer() {
  const peer = await linkedPeer();
  const protocol = new RawProtocol();
  const lifetime: { reason: McpCloseReason | undefined } = { reason: undefined };
  const reported: McpTransportError[] = [];
  const inbound = attachInboundDispatch(protocol, {
    lifetime,
    report: (error) => reported.push(error),
    redact: (text) => text.replaceAll("s3cret", "[redacted]"),
  });
  await protocol.connect(peer.clientSide);
  onTestFinished(() => protocol.close());
  /** The peer's answer to its request `id`. */
  const answerTo = (id: number) =>
    waitFor(() =>
      peer.received.find((message): message is JSONRPCMessage => "id" in message && message.id === id),
    );
  return { peer, protocol, lifetime, reported, inbound, answerTo };
}

describe("attachInboundDispatch", () => {
  it("hands the server's notifications to every listener, params only when sent", async () => {
    const { peer, inbound } = await dispatchOverPeer();
    const heard: McpNotification[] = [];
    inbound.onNotification((notification) => heard.push(notification));
    await peer.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    await peer.send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info" } });
    await waitFor(() => heard.length === 2);
    expect(heard).toEqual([
      { method: "notifications/tools/list_changed" },
      { method: "notifications/message", params: { level: "info" } },
    ]);
  });

  it("answers a request with its method's handler, a refusal as a JSON-RPC error, an unknown method as not found", async () => {
    const { peer, inbound, answerTo } = await dispatchOverPeer();
    inbound.onRequest("roots/list", async () => ({ ok: true, result: { roots: [] } }));
    inbound.onRequest("sampling/createMessage", async () => ({
      ok: false,
      error: { code: MCP_ERROR_CODES.invalidParams, message: "no model here" },
    }));
    await peer.send({ jsonrpc: "2.0", id: 1, method: "roots/list" });
    await peer.send({ jsonrpc: "2.0", id: 2, method: "sampling/createMessage", params: {} });
    await peer.send({ jsonrpc: "2.0", id: 3, method: "elicitation/create", params: {} });
    expect(await answerTo(1)).toMatchObject({ result: { roots: [] } });
    expect(await answerTo(2)).toMatchObject({
      // The SDK puts its "MCP error <code>:" prefix in front of the handler's message.
      error: { code: MCP_ERROR_CODES.invalidParams, message: expect.stringContaining("no model here") },
    });
    expect(await answerTo(3)).toMatchObject({ error: { code: MCP_ERROR_CODES.methodNotFound } });
  });

  it("removes a handler only through its own unsubscribe, not one that was replaced", async () => {
    const { peer, inbound, answerTo } = await dispatchOverPeer();
    const removeFirst = inbound.onRequest("roots/list", async () => ({ ok: true, result: { roots: [1] } }));
    const removeSecond = inbound.onRequest("roots/list", async () => ({ ok: true, result: { roots: [2] } }));
    removeFirst();
    await peer.send({ jsonrpc: "2.0", id: 1, method: "roots/list" });
    expect(await answerTo(1)).toMatchObject({ result: { roots: [2] } });
    removeSecond();
    await peer.send({ jsonrpc: "2.0", id: 2, method: "roots/list" });
    expect(await answerTo(2)).toMatchObject({ error: { code: MCP_ERROR_CODES.methodNotFound } });
  });

  it("refuses an empty method as misuse", async () => {
    const { inbound } = await dispatchOverPeer();
    expect(() => inbound.onRequest("", async () => ({ ok: true, result: {} }))).toThrow(McpTransportError);
  });

  it("reports protocol errors as redacted protocol noise while open, and nothing once closed", async () => {
    const { protocol, lifetime, reported } = await dispatchOverPeer();
    protocol.onerror?.(new Error("bad frame carrying s3cret"));
    const own = new McpTransportError(MCP_TRANSPORT_ERROR_CODES.closeFailed, "passed on as it is");
    protocol.onerror?.(own);
    lifetime.reason = { kind: "client", message: "closed by the client" };
    protocol.onerror?.(new Error("stream aborted"));
    expect(reported.map((error) => [error.code, error.message])).toEqual([
      [MCP_TRANSPORT_ERROR_CODES.protocolNoise, expect.stringContaining("bad frame carrying [redacted]")],
      [MCP_TRANSPORT_ERROR_CODES.closeFailed, "passed on as it is"],
    ]);
  });
});
