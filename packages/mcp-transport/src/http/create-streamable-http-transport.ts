import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { closeBoundAround } from "../close-deadline.js";
import { withStandardHeaders } from "../era/http-headers.js";
import { type EraAware, negotiateEra, type ProtocolEra } from "../era/negotiate-era.js";
import { paramHeaderOverflow } from "../era/param-header-budget.js";
import { RequestStreams } from "../era/request-streams.js";
import { ToolHeaderIndex } from "../era/tool-header-index.js";
import { createRedactor, credentialValues, displayUrl } from "../redact.js";
import { createSdkTransport, type SdkMcpTransport } from "../sdk/create-sdk-transport.js";
import { describeError } from "../sdk/fold-error.js";
import type { McpCloseReason, McpWireProtocol } from "../transport.js";
import { withinTime } from "../within-time.js";
import type { HttpAuthOptions } from "./auth-provider.js";
import { createBoundedFetch } from "./bounded-fetch.js";
import { authRedactor, observeStepUp, retryAfterAuthorization } from "./http-auth.js";
import { readHttpOptions } from "./http-options.js";

/** Options of {@link createStreamableHttpTransport}. */
export interface StreamableHttpTransportOptions extends HttpAuthOptions {
  /** The MCP endpoint. Credentials belong in `headers`, never in the URL's userinfo. */
  url: string | URL;
  /** Sent with every request (e.g. `Authorization`); their values never appear in messages. */
  headers?: Readonly<Record<string, string>>;
  /** The largest JSON response, or server-sent event, accepted; a larger one closes the connection (default 4 MiB). */
  maxResponseBytes?: number;
  /** Upper bound for `close()`, which first asks the server to end the session (default 3000). */
  closeTimeoutMs?: number;
  /** Resumes an existing session instead of starting one with `initialize`. */
  sessionId?: string;
  /** Replaces the global `fetch` (a proxy agent, a test double). */
  fetch?: FetchLike;
}

/** An MCP connection over Streamable HTTP. */
export interface StreamableHttpMcpTransport extends SdkMcpTransport, EraAware {
  /** The session id the server assigned, once `initialize` succeeded. */
  sessionId(): string | undefined;
  /** Which protocol the connection negotiated, once `initialize` was answered. */
  wireProtocol(): McpWireProtocol | undefined;
}

/** Connects to a Streamable HTTP MCP endpoint through the SDK's client transport, with bounded responses and redacted messages. */
export function createStreamableHttpTransport(
  options: StreamableHttpTransportOptions,
): StreamableHttpMcpTransport {
  const { url, headers, maxResponseBytes, closeTimeoutMs } = readHttpOptions(options);

  let failure: McpCloseReason | undefined;
  let closing = false;
  const fail = (reason: McpCloseReason): void => {
    if (failure || closing) return;
    failure = reason;
    // The SDK transport reports onclose; the adapter then fails every pending request at once.
    void sdkTransport.close();
  };
  const boundedFetch = createBoundedFetch(
    options.fetch ?? ((input, init) => fetch(input, init)),
    maxResponseBytes,
    {
      onOversized: (message) => fail({ kind: "protocol", message }),
      onNetworkError: (error) =>
        fail({
          kind: "lost",
          message: `the connection to ${displayUrl(url)} failed: ${describeError(error)}`,
        }),
      onSessionExpired: () =>
        fail({ kind: "lost", message: "the server no longer knows this session (HTTP 404); connect again" }),
    },
  );
  const { authProvider } = options;
  // What this connection's tool listings said about x-mcp-header parameters, for its calls' headers.
  const toolHeaders = new ToolHeaderIndex();
  // Set once the era is negotiated below; the streams ask it when a GET goes out.
  let era: (() => ProtocolEra) | undefined;
  const streams = new RequestStreams(() => era?.().kind === "stateless");
  const sdkTransport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
    fetch: withStandardHeaders(observeStepUp(boundedFetch, authProvider), toolHeaders, streams),
    ...(authProvider ? { authProvider } : {}),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  });
  const transport = createSdkTransport(sdkTransport, {
    describeClose: () => failure,
    closeTimeoutMs: closeBoundAround(closeTimeoutMs),
    redact: authRedactor(createRedactor(credentialValues(url, headers)), authProvider),
    ...(authProvider ? { retryAfter: retryAfterAuthorization(authProvider) } : {}),
    closeTransport: async () => {
      closing = true;
      // Best effort, bounded: a dead server must not stall close(); sdkTransport.close() aborts the DELETE.
      if (!failure) await withinTime(sdkTransport.terminateSession(), closeTimeoutMs);
      await sdkTransport.close();
    },
  });
  const negotiated = negotiateEra(transport, {
    toolHeaders,
    // A call whose x-mcp-header arguments would overflow the header block is refused, not sent.
    refuse: (method, params) => paramHeaderOverflow(method, params, toolHeaders),
  });
  era = negotiated.era;
  return {
    ...transport,
    ...negotiated,
    closeTimeoutMs: closeBoundAround(closeTimeoutMs),
    sessionId: () => sdkTransport.sessionId,
  };
}
