/**
 * The metadata guard as a function, for what loopback tests cannot stage: an MCP server off this
 * machine. Tests reach only loopback, so "off this machine" is the guard's own judgement of a URL
 * (`isLoopbackUrl`): here the server is `https://mcp.example.com`, which nothing ever contacts.
 */

import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { describe, expect, it } from "vitest";
import { assertTrustedDiscovery } from "../src/oauth/metadata-guard.js";

const LOCAL_ISSUER = "http://127.0.0.1:9/";

function discoveredAt(issuer: string, endpoints: Record<string, string> = {}): OAuthDiscoveryState {
  return {
    authorizationServerUrl: issuer,
    authorizationServerMetadata: {
      issuer,
      authorization_endpoint: `${issuer}authorize`,
      token_endpoint: `${issuer}token`,
      response_types_supported: ["code"],
      ...endpoints,
    },
  } as OAuthDiscoveryState;
}

describe("plain http to this machine only for a server on this machine", () => {
  it("a remote server naming an authorization server on this machine is refused", () => {
    expect(() =>
      assertTrustedDiscovery(discoveredAt(LOCAL_ISSUER), { serverUrl: "https://mcp.example.com/mcp" }),
    ).toThrow(/plain http on this machine/);
  });

  it("a remote server's issuer putting its token endpoint on this machine is refused", () => {
    const state = discoveredAt("https://mcp.example.com/", { token_endpoint: "http://127.0.0.1:9/token" });
    expect(() => assertTrustedDiscovery(state, { serverUrl: "https://mcp.example.com/mcp" })).toThrow(
      /token_endpoint is on http:\/\/127\.0\.0\.1:9/,
    );
  });

  it("a server on this machine may name an authorization server there", () => {
    expect(() =>
      assertTrustedDiscovery(discoveredAt(LOCAL_ISSUER), { serverUrl: "http://127.0.0.1:8/mcp" }),
    ).not.toThrow();
  });

  it("a pinned issuer or endpoint origin is the configuration's word", () => {
    expect(() =>
      assertTrustedDiscovery(discoveredAt(LOCAL_ISSUER), {
        serverUrl: "https://mcp.example.com/mcp",
        expectedIssuer: LOCAL_ISSUER,
      }),
    ).not.toThrow();
    const state = discoveredAt("https://accounts.example.com/", {
      token_endpoint: "https://tokens.example.com/token",
    });
    expect(() => assertTrustedDiscovery(state, { serverUrl: "https://mcp.example.com/mcp" })).toThrow(
      /endpointOrigins/,
    );
    expect(() =>
      assertTrustedDiscovery(state, {
        serverUrl: "https://mcp.example.com/mcp",
        endpointOrigins: ["https://tokens.example.com"],
      }),
    ).not.toThrow();
  });
});
