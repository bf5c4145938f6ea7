import { MCP_TRANSPORT_ERROR_CODES, McpTransportError } from "../errors.js";
import { withinTime } from "../within-time.js";
import type { ConnectionLifetime } from "./connection-lifetime.js";
import { describeError } from "./fold-error.js";

/** What {@link createCloseSequence} ends, and how it reports a close that failed. */
export interface CloseSequencePort {
  lifetime: ConnectionLifetime;
  /** Settles once the SDK transport is up or failed to start: closing waits for that first. */
  ready: Promise<unknown>;
  /** Closes the SDK transport itself. */
  closeTransport: () => Promise<void>;
  closeTimeoutMs: number;
  /** Tells the transport's error listeners of a `close_failed`. */
  report: (error: McpTransportError) => void;
  redact: (text: string) => string;
}

/**
 * The transport's `close()`: idempotent (every call returns the first call's promise), it ends the
 * connection as closed by the client at once, then closes the SDK transport within
 * `closeTimeoutMs`. A close that times out or fails is reported as `close_failed`, never thrown.
 */
export function createCloseSequence(port: CloseSequencePort): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const run = async (): Promise<void> => {
    port.lifetime.end({ kind: "client", message: "closed by the client" });
    // The SDK transport itself, not protocol.close(): after the peer went away the protocol has
    // already let go of it, but it may still hold a process that is being torn down.
    const outcome = await withinTime(
      port.ready.then(() => port.closeTransport()),
      port.closeTimeoutMs,
    );
    if (outcome.kind === "timeout") {
      port.report(
        new McpTransportError(
          MCP_TRANSPORT_ERROR_CODES.closeFailed,
          `the transport did not close within ${port.closeTimeoutMs} ms`,
        ),
      );
    } else if (outcome.kind === "error") {
      port.report(
        new McpTransportError(
          MCP_TRANSPORT_ERROR_CODES.closeFailed,
          port.redact(`closing the transport failed: ${describeError(outcome.error)}`),
        ),
      );
    }
  };
  return () => {
    closing ??= run();
    return closing;
  };
}
