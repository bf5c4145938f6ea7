import { isRecord } from "@agent/base";
/**
 * The 2026-07-28 revision's per-request envelope: with no `initialize` handshake and no session,
 * every request carries the protocol version and the client's identity and capabilities in `_meta`.
 */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** What the envelope says about the client, taken from the `initialize` params the client built. */
export interface ClientEnvelope {
  clientInfo: unknown;
  capabilities: unknown;
}

/** `params` with the envelope's `_meta` keys added; keys the caller set itself win. */
export function withEnvelope(params: unknown, envelope: ClientEnvelope): Record<string, unknown> {
  const base = isRecord(params) ? params : {};
  const meta = isRecord(base._meta) ? base._meta : {};
  return {
    ...base,
    _meta: {
      [META_KEYS.protocolVersion]: MODERN_PROTOCOL_VERSION,
      [META_KEYS.clientInfo]: envelope.clientInfo,
      [META_KEYS.clientCapabilities]: envelope.capabilities,
      ...meta,
    },
  };
}

/** The envelope's protocol version in a JSON-RPC message's params, if it carries one. */
export function envelopeVersion(message: unknown): string | undefined {
  if (!isRecord(message) || !isRecord(message.params) || !isRecord(message.params._meta)) return undefined;
  const version = message.params._meta[META_KEYS.protocolVersion];
  return typeof version === "string" ? version : undefined;
}

export { isRecord };
