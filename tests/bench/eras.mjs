// The raw official clients of `pnpm bench --only=eras`, one per protocol era, each a one-call function
// over its own connection to the given server: `@modelcontextprotocol/sdk` 1.x `Client` (the
// handshake, 2025-11-25) and `@modelcontextprotocol/client` 2.x `Client` pinned to 2026-07-28 (the
// stateless protocol: `server/discover`, the `_meta` envelope on every request). This file lives in the
// private @agent/bench-peers package so that its imports resolve to the clients installed there.

import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdio } from "@modelcontextprotocol/client/stdio";
import { Client as HandshakeClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as HandshakeStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HandshakeHttp } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** The revision each raw client speaks. */
export const ERA_VERSIONS = { handshake: "2025-11-25", stateless: "2026-07-28" };

const CLIENT_INFO = { name: "bench-raw-era", version: "1.0.0" };

function transportFor(era, server) {
  if (server.url) {
    const url = new URL(server.url);
    return era === "stateless" ? new ModernHttp(url) : new HandshakeHttp(url);
  }
  const parameters = { command: server.command, args: server.args, env: server.env, stderr: "ignore" };
  return era === "stateless" ? new ModernStdio(parameters) : new HandshakeStdio(parameters);
}

function clientFor(era) {
  if (era === "handshake") return new HandshakeClient(CLIENT_INFO);
  return new ModernClient(CLIENT_INFO, { versionNegotiation: { mode: { pin: ERA_VERSIONS.stateless } } });
}

/**
 * Connects the raw client of `era` ("handshake" or "stateless") to `server` (`{ url }` for
 * Streamable HTTP, `{ command, args, env }` for stdio). Returns the client, the revision it
 * negotiated, `call(name, args)` (throws unless the call succeeded) and `close`.
 */
export async function openEraClient(era, server) {
  const client = clientFor(era);
  const transport = transportFor(era, server);
  // SDK 1.x keeps the negotiated version to itself; it hands it to the transport after `initialize`.
  let agreed;
  const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version) => {
    agreed = version;
    setProtocolVersion?.(version);
  };
  await client.connect(transport);
  const negotiated = era === "handshake" ? agreed : client.getNegotiatedProtocolVersion();
  if (negotiated !== ERA_VERSIONS[era]) {
    await client.close();
    throw new Error(`the ${era} client negotiated ${negotiated}, not ${ERA_VERSIONS[era]}`);
  }
  return {
    negotiated,
    pid: transport.pid ?? undefined,
    call: async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError || result.content?.[0]?.type !== "text") {
        throw new Error(`${era} Client.callTool did not succeed: ${JSON.stringify(result).slice(0, 300)}`);
      }
    },
    close: () => client.close(),
  };
}
