import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage, JSONRPCRequest } from "@modelcontextprotocol/sdk/types.js";

/** The far end of an in-memory link, scripted message by message, for the parts of the SDK adapter. */
export interface InMemoryPeer {
  /** The end to hand to the part under test. */
  clientSide: InMemoryTransport;
  /** Every message the peer received, in order. */
  received: JSONRPCMessage[];
  /** Sends `message` to the client side. */
  send(message: JSONRPCMessage): Promise<void>;
  /** Closes the link from the peer's end. */
  close(): Promise<void>;
}

/** Links a peer that answers each request with what `answer` returns (nothing: no answer). */
export async function linkedPeer(
  answer: (request: JSONRPCRequest) => JSONRPCMessage | undefined = () => undefined,
): Promise<InMemoryPeer> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const received: JSONRPCMessage[] = [];
  serverSide.onmessage = (message) => {
    received.push(message);
    if ("method" in message && "id" in message) {
      const reply = answer(message);
      if (reply) void serverSide.send(reply);
    }
  };
  await serverSide.start();
  return {
    clientSide,
    received,
    send: (message) => serverSide.send(message),
    close: () => serverSide.close(),
  };
}

/** A result answer to `request`. */
export function resultFor(request: JSONRPCRequest, result: Record<string, unknown>): JSONRPCMessage {
  return { jsonrpc: "2.0", id: request.id, result };
}
