/**
 * The one-retry path of the SDK adapter's outbound part (outbound-messages.ts): what happens while
 * `retryAfter` is deciding, and when it fails.
 */
import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { ConnectionLifetime } from "../src/sdk/connection-lifetime.js";
import { createOutbound } from "../src/sdk/outbound-messages.js";
import { PendingRequests } from "../src/sdk/pending-requests.js";
import { ProtocolConnection } from "../src/sdk/protocol-connection.js";
import { RawProtocol } from "../src/sdk/raw-protocol.js";
import type { RetryDecision } from "../src/sdk/sdk-transport-options.js";
import { MCP_ERROR_CODES, type McpResponse } from "../src/transport.js";
import { never } from "./helpers.js";
import { linkedPeer } from "./in-memory-peer.js";

const unauthorized = (request: JSONRPCRequest): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id: request.id,
  error: { code: MCP_ERROR_CODES.internalError, message: "unauthorized" },
});

/** An outbound whose every request is refused, with a retryAfter that waits until `decide` is called. */
async function refusedWithPendingDecision() {
  const peer = await linkedPeer(unauthorized);
  const protocol = new RawProtocol();
  onTestFinished(() => protocol.close());
  const pending = new PendingRequests();
  const lifetime = new ConnectionLifetime(pending, (text) => text);
  const connection = new ProtocolConnection(protocol, peer.clientSide, lifetime, () => undefined);
  let asked: () => void = () => {};
  const askedOnce = new Promise<void>((resolve) => {
    asked = resolve;
  });
  let decide: (decision: RetryDecision | Error) => void = () => {};
  const retryAfter = () => {
    asked();
    return new Promise<RetryDecision>((resolve, reject) => {
      decide = (decision) => (decision instanceof Error ? reject(decision) : resolve(decision));
    });
  };
  const outbound = createOutbound({ connection, pending, redact: (text) => text, retryAfter });
  const requests = () => peer.received.filter((message) => "method" in message && "id" in message);
  return { outbound, lifetime, requests, askedOnce, decide: (d: RetryDecision | Error) => decide(d) };
}

/** Lets every queued microtask and I/O callback run (no wall-clock wait). */
const drain = () => new Promise((resolve) => setImmediate(resolve));

describe("the one-retry path, while retryAfter decides", () => {
  it("sends nothing again when the connection ended meanwhile, and answers connection closed", async () => {
    const { outbound, lifetime, requests, askedOnce, decide } = await refusedWithPendingDecision();
    const outcome = outbound.request("tools/list", {}, never());
    await askedOnce;
    lifetime.end({ kind: "client", message: "closed by the client" });
    decide({ retry: true });
    expect(await outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.connectionClosed } });
    await drain();
    expect(requests()).toHaveLength(1);
  });

  it("sends nothing again when the caller cancelled meanwhile", async () => {
    const { outbound, requests, askedOnce, decide } = await refusedWithPendingDecision();
    const caller = new AbortController();
    const outcome = outbound.request("tools/list", {}, caller.signal);
    await askedOnce;
    caller.abort();
    decide({ retry: true });
    expect(await outcome).toMatchObject({ ok: false, error: { code: MCP_ERROR_CODES.cancelled } });
    await drain();
    expect(requests()).toHaveLength(1);
  });

  // A rejection left unhandled would leave the request pending (with no timeoutMs, until close) and,
  // on Node's default, end the process.
  it("fails the request when retryAfter itself rejects, rather than leaving it pending", async () => {
    const { outbound, askedOnce, decide } = await refusedWithPendingDecision();
    let settled: McpResponse | undefined;
    void outbound.request("tools/list", {}, never()).then((response) => {
      settled = response;
    });
    await askedOnce;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    onTestFinished(() => {
      process.off("unhandledRejection", onUnhandled);
    });
    decide(new Error("the token endpoint is unreachable"));
    await drain();
    await drain();
    expect(unhandled).toEqual([]);
    expect(settled).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("the token endpoint is unreachable") },
    });
  });
});
