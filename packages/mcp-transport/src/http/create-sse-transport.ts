import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { closeBoundAround } from "../close-deadline.js";
import { createRedactor, credentialValues, displayUrl } from "../redact.js";
import { createSdkTransport, type SdkMcpTransport } from "../sdk/create-sdk-transport.js";
import { describeError } from "../sdk/fold-error.js";
import { httpStatusLine } from "../sdk/http-error-summary.js";
import type { McpCloseReason } from "../transport.js";
import type { HttpAuthOptions } from "./auth-provider.js";
import { createBoundedFetch } from "./bounded-fetch.js";
import { authRedactor, observeStepUp, retryAfterAuthorization } from "./http-auth.js";
import { type HttpEndpointOptions, readHttpOptions } from "./http-options.js";

const STREAM_ENDED = "the event stream ended; the server's session is gone (connect again)";

/** Options of {@link createSseTransport}. */
export interface SseTransportOptions extends HttpEndpointOptions, HttpAuthOptions {
  /** Replaces the global `fetch` (a proxy agent, a test double); used for the event stream and the POSTs. */
  fetch?: FetchLike;
}

/**
 * Connects to a server over the legacy HTTP+SSE transport (protocol 2024-11-05: a GET event stream
 * that names a POST endpoint) through the SDK's client transport, with the hygiene of Streamable HTTP:
 * every event bounded by `maxResponseBytes`, credentials redacted from every message, requests
 * cancellable. The event stream is the connection: when it drops, the connection is `lost` (the SDK
 * would open a new stream, which on this transport is a new session the server knows nothing of).
 */
export function createSseTransport(options: SseTransportOptions): SdkMcpTransport {
  const { url, headers, maxResponseBytes, closeTimeoutMs } = readHttpOptions(options);
  let failure: McpCloseReason | undefined;
  let closing = false;
  let streamOpened = false;
  const fail = (reason: McpCloseReason): void => {
    if (failure || closing) return;
    failure = reason;
    void sdkTransport.close();
  };
  const base = options.fetch ?? ((input, init) => fetch(input, init));
  const bounded = createBoundedFetch(base, maxResponseBytes, {
    onOversized: (message) => fail({ kind: "protocol", message }),
    onNetworkError: (error) =>
      fail({ kind: "lost", message: `the connection to ${displayUrl(url)} failed: ${describeError(error)}` }),
    // Sessions of this transport travel in the endpoint's query, not in a header: see below.
    onSessionExpired: () => {},
  });
  const streamEnded = (): void => fail({ kind: "lost", message: STREAM_ENDED });
  const guarded: FetchLike = async (input, init) => {
    const isStream = (init?.method ?? "GET").toUpperCase() === "GET";
    // A second stream after one was open is the SDK reconnecting: on this transport, a new session.
    // (A stream refused with 401 before any opened is the SDK's OAuth flow, which then tries again.)
    if (isStream && streamOpened) {
      streamEnded();
      throw new Error(STREAM_ENDED);
    }
    const response = await bounded(input, init);
    if (!isStream) {
      if (response.status === 404) {
        fail({ kind: "lost", message: "the server no longer knows this session (HTTP 404); connect again" });
      }
      return response;
    }
    if (!response.ok || !response.body) {
      if (response.status !== 401 || !options.authProvider) {
        fail({ kind: "lost", message: `the event stream was refused (${httpStatusLine(response.status)})` });
      }
      return response;
    }
    streamOpened = true;
    // The end of the stream is the end of the session: say so now, not when the SDK would retry.
    const body = response.body.pipeThrough(new TransformStream({ flush: streamEnded }));
    const watched = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    Object.defineProperty(watched, "url", { value: response.url });
    return watched;
  };
  const { authProvider } = options;
  const sdkTransport = new SSEClientTransport(url, {
    requestInit: { headers },
    fetch: observeStepUp(guarded, authProvider),
    ...(authProvider ? { authProvider } : {}),
  });
  const transport = createSdkTransport(sdkTransport, {
    describeClose: () => failure,
    closeTimeoutMs: closeBoundAround(closeTimeoutMs),
    redact: authRedactor(createRedactor(credentialValues(url, headers)), authProvider),
    ...(authProvider ? { retryAfter: retryAfterAuthorization(authProvider) } : {}),
    closeTransport: async () => {
      closing = true;
      await sdkTransport.close();
    },
  });
  return { ...transport, closeTimeoutMs: closeBoundAround(closeTimeoutMs) };
}
