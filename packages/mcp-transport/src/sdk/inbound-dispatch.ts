import { type Result, McpError as SdkMcpError } from "@modelcontextprotocol/sdk/types.js";
import { assertMethod } from "../assert-argument.js";
import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "../errors.js";
import {
  MCP_ERROR_CODES,
  type McpCloseReason,
  type McpNotification,
  type McpRequestHandler,
} from "../transport.js";
import { describeError } from "./fold-error.js";
import { ListenerSet } from "./listener-set.js";
import type { RawProtocol } from "./raw-protocol.js";

/** What the peer sends on its own: its notifications and its requests, and where they go. */
export interface InboundDispatch {
  /** Subscribes to the server's notifications; returns the unsubscribe function. */
  onNotification(listener: (notification: McpNotification) => void): () => void;
  /** Answers the server's requests of `method` with `handler`; returns the function that removes it. */
  onRequest(method: string, handler: McpRequestHandler): () => void;
}

/** What {@link attachInboundDispatch} needs besides the protocol. */
export interface InboundDispatchPort {
  /** The connection's end, if it ended: errors after it are side effects of the shutdown. */
  readonly lifetime: { readonly reason: McpCloseReason | undefined };
  /** Tells the transport's error listeners of an out-of-band problem. */
  report: (error: McpTransportError) => void;
  redact: (text: string) => string;
}

/**
 * Routes what `protocol` receives unasked: notifications to their listeners, requests to the
 * handler registered for their method, and protocol errors to `report` as `protocol_noise`.
 * Progress, cancellation and `ping` keep the SDK Protocol's own handlers.
 */
export function attachInboundDispatch(protocol: RawProtocol, port: InboundDispatchPort): InboundDispatch {
  const notificationListeners = new ListenerSet<McpNotification>();
  const requestHandlers = new Map<string, McpRequestHandler>();

  protocol.fallbackNotificationHandler = async (notification) => {
    const event: McpNotification =
      notification.params === undefined
        ? { method: notification.method }
        : { method: notification.method, params: notification.params };
    notificationListeners.emit(event);
  };
  // A method nobody registered is "method not found", as the SDK answers it.
  protocol.fallbackRequestHandler = async (request, extra) => {
    const handler = requestHandlers.get(request.method);
    if (!handler) throw new SdkMcpError(MCP_ERROR_CODES.methodNotFound, "Method not found");
    const answer = await handler(request.params, { signal: extra.signal });
    if (answer.ok) return answer.result as Result;
    throw new SdkMcpError(answer.error.code, answer.error.message, answer.error.data);
  };
  protocol.onerror = (error) => {
    if (error instanceof McpTransportError) return port.report(error);
    // Once closed, errors are side effects of the shutdown (aborted streams), not news.
    if (port.lifetime.reason) return;
    port.report(
      new McpTransportError(MCP_TRANSPORT_ERROR_CODES.protocolNoise, port.redact(describeError(error))),
    );
  };

  return {
    onNotification: (listener) => notificationListeners.add(listener),
    onRequest(method, handler) {
      assertMethod(method);
      requestHandlers.set(method, handler);
      return () => {
        if (requestHandlers.get(method) === handler) requestHandlers.delete(method);
      };
    },
  };
}
