import { negotiateEra } from "../src/era/negotiate-era.js";
import type { McpRequestContext, McpRequestHandler, McpResponse, McpTransport } from "../src/transport.js";

/** One request the scripted server got (besides `server/discover` and `initialize`), as sent. */
export type Sent = {
  method: string;
  params: Record<string, unknown>;
  context: McpRequestContext | AbortSignal;
};
/** Each method's answers, in order. */
export type Script = Record<string, McpResponse[]>;

/** How a {@link scriptedEraServer} answers; the shape of the server is the same for every test. */
export interface ScriptedEraServerOptions {
  /** `each-once`: every scripted answer is given once, then `unscripted`; `repeat-last`: the last one repeats. */
  answers: "each-once" | "repeat-last";
  /** The answer to a method whose script is empty or absent. */
  unscripted: McpResponse;
  /** An old server: it refuses `server/discover` and speaks the 2025 handshake. */
  handshake?: boolean;
}

/** A transport that takes the server's requests (what the era's input requests reach). */
export type RequestTakingTransport = McpTransport & Required<Pick<McpTransport, "onRequest">>;

/** A scripted server and the requests it got: `sent` as they were sent, `received` every method in order. */
export interface ScriptedEraServer {
  transport: RequestTakingTransport;
  sent: Sent[];
  received: string[];
}

/** The `initialize` params a client sends. */
export const INITIALIZE = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "agent", version: "1" },
};

/**
 * A server behind the transport port, written by hand: a stateless one (2026-07-28, it answers
 * `server/discover`) or, with `handshake`, an old one, answering every other method from `script`.
 */
export function scriptedEraServer(script: Script, options: ScriptedEraServerOptions): ScriptedEraServer {
  const sent: Sent[] = [];
  const received: string[] = [];
  const next = (method: string): McpResponse | undefined => {
    const answers = script[method] ?? [];
    return options.answers === "repeat-last" && answers.length === 1 ? answers[0] : answers.shift();
  };
  const transport: RequestTakingTransport = {
    async request(method, params, context) {
      received.push(method);
      if (method === "server/discover") {
        return options.handshake
          ? { ok: false, error: { code: -32601, message: "Method not found" } }
          : { ok: true, result: { supportedVersions: ["2026-07-28"], capabilities: {} } };
      }
      if (method === "initialize")
        return { ok: true, result: { protocolVersion: "2025-11-25", capabilities: {} } };
      sent.push({ method, params: params as Record<string, unknown>, context });
      return next(method) ?? options.unscripted;
    },
    notify: async () => ({ ok: true }),
    onNotification: () => () => {},
    onRequest: () => () => {},
    onClose: () => () => {},
    close: async () => {},
  };
  return { transport, sent, received };
}

/**
 * Wraps a {@link scriptedEraServer} in `negotiateEra` with the client's `handlers`, and initializes
 * it as a client would.
 */
export async function connectScripted(
  script: Script,
  options: ScriptedEraServerOptions,
  handlers: Record<string, McpRequestHandler> = {},
): Promise<{
  era: ReturnType<typeof negotiateEra<RequestTakingTransport>>;
  sent: Sent[];
  received: string[];
}> {
  const { transport, sent, received } = scriptedEraServer(script, options);
  const era = negotiateEra(transport);
  for (const [method, handler] of Object.entries(handlers)) era.onRequest(method, handler);
  await era.request("initialize", INITIALIZE, new AbortController().signal);
  return { era, sent, received };
}

/** What a request sent besides the envelope. */
export function withoutMeta(params: Record<string, unknown>): Record<string, unknown> {
  const { _meta, ...rest } = params;
  return rest;
}
