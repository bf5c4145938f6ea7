import { closeBoundAround } from "../close-deadline.js";
import { type EraAware, negotiateEra } from "../era/negotiate-era.js";
import { createRedactor } from "../redact.js";
import { createSdkTransport, type SdkMcpTransport } from "../sdk/create-sdk-transport.js";
import type { McpWireProtocol } from "../transport.js";
import type { StdioServerParameters } from "./stdio-launch.js";
import { type StdioDiagnostics, StdioProcessTransport } from "./stdio-process-transport.js";

/**
 * How long the era probe (`server/discover`) waits for a word from the server before the handshake
 * is tried: an old server may ignore an unknown method entirely. Long enough for a server that is
 * still starting (a modern one answers the probe first); at most half the `initialize` time limit.
 */
const SILENT_PROBE_MS = 5_000;

/** Options of {@link createStdioTransport}. */
export type StdioTransportOptions = StdioServerParameters;

/** An MCP connection to a server child process over stdio. */
export interface StdioMcpTransport extends SdkMcpTransport, EraAware {
  /** The longest `close()` takes: the process transport's `closeTimeoutMs` plus the adapter's margin. */
  readonly closeTimeoutMs: number;
  /** Which protocol the connection negotiated, once `initialize` was answered. */
  wireProtocol(): McpWireProtocol | undefined;
  /** The server's process id (also its process group id), once spawned. */
  pid(): number | undefined;
  /** The last bytes of the server's stderr (bounded by `stderrBufferBytes`), with control characters escaped. */
  stderrTail(): string;
  /** Exit status, skipped stdout lines and other observations, for diagnostics. */
  diagnostics(): StdioDiagnostics;
}

/**
 * Spawns a stdio MCP server with a minimal environment and returns its connection; never throws for
 * a server that fails to start. The era is negotiated as over HTTP (`negotiateEra`): `server/discover`
 * first, on the same child; an old server's "method not found" (or any other answer of its own), or
 * its silence for `SILENT_PROBE_MS` (at most half the `initialize` time limit), falls back to the
 * `initialize` handshake without restarting it, within what is left of that limit.
 */
export function createStdioTransport(options: StdioTransportOptions): StdioMcpTransport {
  const processTransport = new StdioProcessTransport(options);
  // Values the caller put in the environment are the likely credentials (API keys, tokens): a
  // server that logs them must not carry them into errors, events or diagnostics.
  const redact = createRedactor(Object.values(options.env ?? {}));
  // close() of the process transport is already bounded; the adapter's bound only adds its own steps.
  const closeTimeoutMs = closeBoundAround(processTransport.closeTimeoutMs);
  const transport = createSdkTransport(processTransport, {
    describeClose: () => processTransport.closeReason,
    closeTimeoutMs,
    redact,
  });
  return {
    ...transport,
    ...negotiateEra(transport, { silentProbeMs: SILENT_PROBE_MS }),
    closeTimeoutMs,
    pid: () => processTransport.pid,
    stderrTail: () => redact(processTransport.stderrTail()),
    diagnostics: () => {
      const diagnostics = processTransport.diagnostics();
      return { ...diagnostics, skippedLineSamples: diagnostics.skippedLineSamples.map(redact) };
    },
  };
}
