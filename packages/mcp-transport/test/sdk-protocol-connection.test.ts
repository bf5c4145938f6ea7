/** The SDK transport coming up under the protocol, and the end of the connection when it fails or goes. */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { describe, expect, it, onTestFinished } from "vitest";
import { ConnectionLifetime } from "../src/sdk/connection-lifetime.js";
import { PendingRequests } from "../src/sdk/pending-requests.js";
import { ProtocolConnection } from "../src/sdk/protocol-connection.js";
import { RawProtocol } from "../src/sdk/raw-protocol.js";
import type { McpCloseReason } from "../src/transport.js";
import { waitFor } from "./helpers.js";
import { linkedPeer } from "./in-memory-peer.js";

function connectionOver(
  transport: Transport,
  describeClose: () => McpCloseReason | undefined = () => undefined,
) {
  const protocol = new RawProtocol();
  onTestFinished(() => protocol.close());
  const lifetime = new ConnectionLifetime(new PendingRequests(), (text) => text);
  return { lifetime, connection: new ProtocolConnection(protocol, transport, lifetime, describeClose) };
}

/** A transport that cannot start, as a missing server binary does. */
function unstartable(): Transport {
  return {
    start: () => Promise.reject(new Error("spawn no-such-server ENOENT")),
    send: async () => {},
    close: async () => {},
  };
}

describe("ProtocolConnection", () => {
  it("is connected once the SDK transport is up, and ready says so", async () => {
    const peer = await linkedPeer();
    const { lifetime, connection } = connectionOver(peer.clientSide);
    expect(connection.connected).toBe(false);
    expect(await connection.ready).toBe(true);
    expect(connection.connected).toBe(true);
    expect(lifetime.reason).toBeUndefined();
  });

  it("ends the connection as lost, saying why, when the transport cannot start", async () => {
    const { lifetime, connection } = connectionOver(unstartable());
    expect(await connection.ready).toBe(false);
    expect(connection.connected).toBe(false);
    expect(lifetime.reason).toEqual({
      kind: "lost",
      message: "could not start the transport: spawn no-such-server ENOENT",
    });
  });

  it("takes describeClose's reason for a failed start when it has one", async () => {
    const reason: McpCloseReason = { kind: "exited", message: "exit code 127" };
    const { lifetime, connection } = connectionOver(unstartable(), () => reason);
    await connection.ready;
    expect(lifetime.reason).toEqual(reason);
  });

  it("ends the connection when the peer goes away: lost, or describeClose's reason", async () => {
    const plain = await linkedPeer();
    const first = connectionOver(plain.clientSide);
    await first.connection.ready;
    await plain.close();
    await waitFor(() => first.lifetime.reason);
    expect(first.lifetime.reason).toEqual({ kind: "lost", message: "the transport closed" });

    const described = await linkedPeer();
    const reason: McpCloseReason = { kind: "protocol", message: "a message over the size limit" };
    const second = connectionOver(described.clientSide, () => reason);
    await second.connection.ready;
    await described.close();
    await waitFor(() => second.lifetime.reason);
    expect(second.lifetime.reason).toEqual(reason);
  });
});
