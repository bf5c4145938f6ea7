import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpTransportError } from "../errors.js";
import type { McpCloseReason, McpRequestHandler, McpTransport } from "../transport.js";
import { createCloseSequence } from "./close-sequence.js";
import { ConnectionLifetime } from "./connection-lifetime.js";
import { attachInboundDispatch } from "./inbound-dispatch.js";
import { ListenerSet } from "./listener-set.js";
import { createOutbound } from "./outbound-messages.js";
import { PendingRequests } from "./pending-requests.js";
import { ProtocolConnection } from "./protocol-connection.js";
import { RawProtocol } from "./raw-protocol.js";
import { resolveSdkTransportSettings, type SdkTransportOptions } from "./sdk-transport-options.js";

export type { RetryDecision, SdkTransportOptions } from "./sdk-transport-options.js";

/** An {@link McpTransport} over an SDK transport, with its close reason and out-of-band problems observable. */
export interface SdkMcpTransport extends McpTransport {
  /** Why the connection ended; undefined while it is open. */
  closeReason(): McpCloseReason | undefined;
  /** Subscribes to out-of-band problems (`close_failed`, `protocol_noise`); returns the unsubscribe function. */
  onError(listener: (error: McpTransportError) => void): () => void;
  /** Answers the server's requests of `method`; see {@link McpTransport.onRequest}. */
  onRequest(method: string, handler: McpRequestHandler): () => void;
}

/**
 * Wraps any SDK client `Transport` (stdio, Streamable HTTP, in-memory, ...) as an {@link McpTransport}.
 * The result is a plain object of own functions, so callers may spread it (`{ ...transport, ... }`).
 */
export function createSdkTransport(
  sdkTransport: Transport,
  options: SdkTransportOptions = {},
): SdkMcpTransport {
  const { describeClose, closeTransport, closeTimeoutMs, redact, retryAfter } = resolveSdkTransportSettings(
    sdkTransport,
    options,
  );
  const protocol = new RawProtocol();
  const pending = new PendingRequests();
  const errorListeners = new ListenerSet<McpTransportError>();
  const report = (error: McpTransportError): void => errorListeners.emit(error);
  const lifetime = new ConnectionLifetime(pending, redact);
  // Before the connection starts: a transport may hand over messages it queued from within start().
  const inbound = attachInboundDispatch(protocol, { lifetime, report, redact });
  const connection = new ProtocolConnection(protocol, sdkTransport, lifetime, describeClose);
  const outbound = createOutbound({ connection, pending, redact, retryAfter });
  return {
    request: outbound.request,
    notify: outbound.notify,
    onNotification: inbound.onNotification,
    onRequest: inbound.onRequest,
    onClose: (listener) => lifetime.onClose(listener),
    onError: (listener) => errorListeners.add(listener),
    closeReason: () => lifetime.reason,
    close: createCloseSequence({
      lifetime,
      ready: connection.ready,
      closeTransport,
      closeTimeoutMs,
      report,
      redact,
    }),
  };
}
