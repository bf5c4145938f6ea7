/** The client's requests and notifications: sent once the transport is up, settled once, retried at most once. */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { McpTransportError } from "../src/errors.js";
import { ConnectionLifetime } from "../src/sdk/connection-lifetime.js";
import { createOutbound } from "../src/sdk/outbound-messages.js";
import { PendingRequests } from "../src/sdk/pending-requests.js";
import { ProtocolConnection } from "../src/sdk/protocol-connection.js";
import { RawProtocol } from "../src/sdk/raw-protocol.js";
import type { RetryDecision } from "../src/sdk/sdk-transport-options.js";
import { MCP_ERROR_CODES, type McpProgress } from "../src/transport.js";
import { never } from "./helpers.js";
import { linkedPeer, resultFor } from "./in-memory-peer.js";

type Answer = (request: JSONRPCRequest) => JSONRPCMessage | undefined;

const failureFor = (request: JSONRPCRequest, message: string): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id: request.id,
  error: { code: MCP_ERROR_CODES.internalError, message },
});

async function outboundTo(
  answer: Answer,
  retryAfter?: (error: unknown) => Promise<RetryDecision>,
  transport?: Transport,
) {
  const peer = await linkedPeer(answer);
  const sdkTransport: Transport = transport ?? peer.clientSide;
  const protocol = new RawProtocol();
  onTestFinished(() => protocol.close());
  const pending = new PendingRequests();
  const redact = (text: string) => text.replaceAll("s3cret", "[redacted]");
  const lifetime = new ConnectionLifetime(pending, redact);
  const connection = new ProtocolConnection(protocol, sdkTransport, lifetime, () => undefined);
  const outbound = createOutbound({ connection, pending, redact, retryAfter });
  const requests = () => peer.received.filter((message) => "method" in message && "id" in message);
  return { outbound, lifetime, peer, requests, sdkTransport };
}

const echo: Answer = (request) => resultFor(request, { echoed: request.method });

describe("createOutbound", () => {
  it("sends a request made before the transport is up once it is, and settles it with the answer", async () => {
    const { outbound } = await outboundTo(echo);
    expect(await outbound.request("tools/list", {}, never())).toEqual({
      ok: true,
      result: { echoed: "tools/list" },
    });
  });

  it("sends nothing for an aborted signal or a closed connection, and says which", async () => {
    const { outbound, lifetime, requests } = await outboundTo(echo);
    const aborted = new AbortController();
    aborted.abort();
    expect(await outbound.request("tools/list", {}, aborted.signal)).toMatchObject({
      ok: false,
      error: { code: MCP_ERROR_CODES.cancelled },
    });
    lifetime.end({ kind: "client", message: "closed by the client" });
    const closed = { ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } };
    expect(await outbound.request("tools/list", {}, never())).toMatchObject(closed);
    expect(await outbound.notify("notifications/initialized")).toMatchObject(closed);
    expect(requests()).toEqual([]);
  });

  it("fails requests and notifications with connection closed when the transport cannot start", async () => {
    const unstartable: Transport = {
      start: () => Promise.reject(new Error("spawn ENOENT")),
      send: async () => {},
      close: async () => {},
    };
    const { outbound } = await outboundTo(echo, undefined, unstartable);
    const closed = { ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } };
    expect(await outbound.request("tools/list", {}, never())).toMatchObject(closed);
    expect(await outbound.notify("notifications/initialized")).toMatchObject(closed);
  });

  it("rejects misuse with McpTransportError", async () => {
    const { outbound } = await outboundTo(echo);
    await expect(outbound.request("", {}, never())).rejects.toThrow(McpTransportError);
    await expect(outbound.request("tools/list", [] as never, never())).rejects.toThrow(McpTransportError);
    await expect(outbound.notify("")).rejects.toThrow(McpTransportError);
  });

  it("sends a notification without an id", async () => {
    const { outbound, peer } = await outboundTo(echo);
    expect(await outbound.notify("notifications/initialized")).toEqual({ ok: true });
    expect(peer.received).toEqual([{ jsonrpc: "2.0", method: "notifications/initialized" }]);
  });

  it("retries a rejected request once when retryAfter says so; the second outcome is final", async () => {
    const decisions: unknown[] = [];
    const { outbound, requests } = await outboundTo(
      (request) => failureFor(request, `attempt ${request.id}`),
      async (error) => {
        decisions.push(error);
        return { retry: true };
      },
    );
    const outcome = await outbound.request("tools/list", {}, never());
    expect(outcome).toMatchObject({ ok: false, error: { message: "attempt 1" } });
    expect(requests()).toHaveLength(2);
    expect(decisions).toHaveLength(1);
  });

  it("answers a retried request with the second attempt's result", async () => {
    let attempts = 0;
    const { outbound } = await outboundTo(
      (request) => {
        attempts += 1;
        return attempts === 1 ? failureFor(request, "unauthorized") : resultFor(request, { tools: [] });
      },
      async () => ({ retry: true }),
    );
    expect(await outbound.request("tools/list", {}, never())).toEqual({ ok: true, result: { tools: [] } });
  });

  it("fails with retryAfter's error, redacted, when it declines with one", async () => {
    const { outbound, requests } = await outboundTo(
      (request) => failureFor(request, "unauthorized"),
      async () => ({ retry: false, error: new Error("authorization refused for s3cret") }),
    );
    const outcome = await outbound.request("tools/list", {}, never());
    expect(outcome).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/authorization refused for \[redacted\]$/) },
    });
    expect(requests()).toHaveLength(1);
  });

  it("tells the SDK transport the version initialize negotiated, and only after initialize", async () => {
    const { outbound, sdkTransport } = await outboundTo((request) =>
      resultFor(request, { protocolVersion: "2025-11-25" }),
    );
    const versions: string[] = [];
    sdkTransport.setProtocolVersion = (version: string) => void versions.push(version);
    await outbound.request("tools/list", {}, never());
    expect(versions).toEqual([]);
    await outbound.request("initialize", {}, never());
    expect(versions).toEqual(["2025-11-25"]);
  });

  it("hands the server's progress to onProgress as McpProgress, before the answer", async () => {
    const link: { send?: (message: JSONRPCMessage) => Promise<void> } = {};
    const { outbound, peer } = await outboundTo((request) => {
      const meta = request.params?._meta as { progressToken?: string | number } | undefined;
      void link.send?.({
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: {
          progressToken: meta?.progressToken ?? -1,
          progress: 1,
          total: 2,
          message: "half",
          extra: 1,
        },
      });
      return resultFor(request, { content: [] });
    });
    link.send = peer.send;
    const progress: McpProgress[] = [];
    const outcome = await outbound.request(
      "tools/call",
      { name: "slow" },
      { signal: never(), onProgress: (update) => void progress.push(update) },
    );
    expect(outcome).toEqual({ ok: true, result: { content: [] } });
    expect(progress).toEqual([{ progress: 1, total: 2, message: "half" }]);
  });
});
