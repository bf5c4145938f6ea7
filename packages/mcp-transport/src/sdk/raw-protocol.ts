// DO NOT CHANGE CASUALLY: this subclasses the SDK's Protocol and overrides protected members, which
// the SDK does not promise to keep. After any @modelcontextprotocol/sdk upgrade, run this package's
// cancellation and protocol tests first (see README "Why our own stdio transport").
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Notification, Request, Result } from "@modelcontextprotocol/sdk/types.js";

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
}
