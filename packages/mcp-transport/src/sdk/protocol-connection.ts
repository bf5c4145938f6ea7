import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpCloseReason } from "../transport.js";
import type { ConnectionLifetime } from "./connection-lifetime.js";
import { describeError } from "./fold-error.js";
import type { RawProtocol } from "./raw-protocol.js";

/**
 * The SDK transport coming up under the protocol. A start that fails, and a close the transport
 * reports, end the connection's lifetime, with `describeClose`'s reason when it has one (the SDK's
 * `onclose()` carries none).
 */
export class ProtocolConnection {
  /** Settles true once the SDK transport is up, false if it failed to start; never rejects. */
  readonly ready: Promise<boolean>;
  readonly protocol: RawProtocol;
  readonly sdkTransport: Transport;
  readonly lifetime: ConnectionLifetime;
  #connected = false;

  constructor(
    protocol: RawProtocol,
    sdkTransport: Transport,
    lifetime: ConnectionLifetime,
    describeClose: () => McpCloseReason | undefined,
  ) {
    this.protocol = protocol;
    this.sdkTransport = sdkTransport;
    this.lifetime = lifetime;
    protocol.onclose = () =>
      lifetime.end(describeClose() ?? { kind: "lost", message: "the transport closed" });
    this.ready = protocol.connect(sdkTransport).then(
      () => {
        this.#connected = true;
        return true;
      },
      (error: unknown) => {
        lifetime.end(
          describeClose() ?? {
            kind: "lost",
            message: `could not start the transport: ${describeError(error)}`,
          },
        );
        return false;
      },
    );
  }

  /** Set once the SDK transport is up, so that a request then goes out at once, not a microtask later. */
  get connected(): boolean {
    return this.#connected;
  }
}
