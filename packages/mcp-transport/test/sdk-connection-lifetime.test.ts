/** The end of one connection: once, for its first reason, failing what is pending and telling every listener. */
import { describe, expect, it } from "vitest";
import { ConnectionLifetime, closedFailure } from "../src/sdk/connection-lifetime.js";
import { PendingRequests } from "../src/sdk/pending-requests.js";
import { MCP_ERROR_CODES, type McpCloseReason, type McpResponse } from "../src/transport.js";

const redactSecret = (text: string): string => text.replaceAll("s3cret", "[redacted]");

function lifetimeWithOnePending(): { lifetime: ConnectionLifetime; outcome: Promise<McpResponse> } {
  const pending = new PendingRequests();
  const outcome = new Promise<McpResponse>((resolve) => {
    pending.start("tools/call", { signal: new AbortController().signal }, resolve);
  });
  return { lifetime: new ConnectionLifetime(pending, redactSecret), outcome };
}

describe("ConnectionLifetime", () => {
  it("is open until it ends, then keeps the first reason, redacted", () => {
    const { lifetime } = lifetimeWithOnePending();
    expect(lifetime.reason).toBeUndefined();
    lifetime.end({ kind: "exited", message: "token s3cret rejected" });
    lifetime.end({ kind: "client", message: "closed by the client" });
    expect(lifetime.reason).toEqual({ kind: "exited", message: "token [redacted] rejected" });
  });

  it("fails every pending request with the connection-closed code and the reason", async () => {
    const { lifetime, outcome } = lifetimeWithOnePending();
    lifetime.end({ kind: "lost", message: "the transport closed" });
    expect(await outcome).toEqual({
      ok: false,
      error: {
        code: MCP_ERROR_CODES.connectionClosed,
        message: "connection closed (lost): the transport closed",
      },
    });
  });

  it("tells each close listener once, a throwing one included, and not one that unsubscribed", () => {
    const { lifetime } = lifetimeWithOnePending();
    const heard: McpCloseReason[] = [];
    lifetime.onClose(() => {
      throw new Error("a listener's bug");
    });
    lifetime.onClose((reason) => heard.push(reason));
    const unsubscribe = lifetime.onClose((reason) => heard.push(reason));
    unsubscribe();
    lifetime.end({ kind: "client", message: "closed by the client" });
    lifetime.end({ kind: "lost", message: "again" });
    expect(heard).toEqual([{ kind: "client", message: "closed by the client" }]);
  });

  it("tells a listener that subscribes after the end, once, a microtask later", async () => {
    const { lifetime } = lifetimeWithOnePending();
    lifetime.end({ kind: "exited", message: "exit code 1" });
    const heard: McpCloseReason[] = [];
    lifetime.onClose((reason) => heard.push(reason));
    expect(heard).toEqual([]);
    await Promise.resolve();
    expect(heard).toEqual([{ kind: "exited", message: "exit code 1" }]);
  });
});

describe("closedFailure", () => {
  it("says connection closed, with the reason when there is one", () => {
    expect(closedFailure(undefined)).toEqual({
      ok: false,
      error: { code: MCP_ERROR_CODES.connectionClosed, message: "connection closed" },
    });
    expect(closedFailure({ kind: "client", message: "bye" }).error.message).toBe(
      "connection closed (client): bye",
    );
  });
});
