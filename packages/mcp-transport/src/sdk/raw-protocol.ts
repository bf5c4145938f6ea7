// DO NOT CHANGE CASUALLY: this subclasses the SDK's Protocol and overrides protected members, which
// the SDK does not promise to keep. After any @modelcontextprotocol/sdk upgrade, run this package's
// cancellation and protocol tests first (see README "Why our own stdio transport").
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type Notification,
  type Request,
  type Result,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The SDK's JSON-RPC machinery (id correlation, progress tokens, `notifications/cancelled`) without
 * any MCP capability bookkeeping: the layer above decides what to send and validates what comes back.
 */
export class RawProtocol extends Protocol<Request, Notification, Result> {
  // Capabilities are negotiated by the caller (it sends `initialize` itself), so nothing is asserted here.
  protected assertCapabilityForMethod(): void {}
  protected assertNotificationCapability(): void {}
  // Only `ping` has a handler (installed by Protocol); every other server request gets "method not found".
  protected assertRequestHandlerCapability(): void {}
  protected assertTaskCapability(): void {}
  protected assertTaskHandlerCapability(): void {}

  /**
   * Protocol hands a notification to its handler a microtask late but settles a response at once,
   * so a server's last progress notification and the result right behind it in the same read were
   * handled result first: the progress was then dropped as "unknown token" (a bar stuck at 75%).
   * A response is delivered a microtask late too, which keeps every message in arrival order.
   */
  override connect(transport: Transport): Promise<void> {
    // Protocol sets `onmessage` before its first await, so it is in place when connect returns.
    const connected = super.connect(transport);
    const deliver = transport.onmessage;
    if (deliver) {
      transport.onmessage = (message, extra) => {
        if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
          queueMicrotask(() => deliver(message, extra));
        } else deliver(message, extra);
      };
    }
    return connected;
  }
}
