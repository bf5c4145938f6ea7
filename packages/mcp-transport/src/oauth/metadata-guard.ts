// What we refuse in discovered OAuth metadata before anything is sent to the endpoints it names.
// The SDK already refuses javascript:, data: and vbscript: URLs and never follows a redirect to
// another origin; this adds the rest of what the MCP authorization spec asks of a careful client.
import type { OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { OAUTH_ERROR_CODES, OAuthFlowError } from "./oauth-errors.js";

const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** Whether `url` names this machine (plain http is accepted there only: traffic never leaves it). */
export function isLoopbackUrl(url: URL): boolean {
  return LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

/** Refuses anything but https, or http to a loopback host; `what` names the field in the message. */
export function assertSafeEndpoint(value: string | URL, what: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw hostile(`${what} is not a URL`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopbackUrl(url)) return url;
  // The scheme alone is named: the rest of a hostile URL is not echoed.
  throw hostile(`${what} uses ${url.protocol} (only https, or http to this machine, is accepted)`);
}

const ENDPOINT_FIELDS = [
  "authorization_endpoint",
  "token_endpoint",
  "registration_endpoint",
  "revocation_endpoint",
  "introspection_endpoint",
  "jwks_uri",
  "userinfo_endpoint",
] as const;

/**
 * Checks discovery's result: every URL it names is https (or loopback http), and the authorization
 * server's metadata names as `issuer` the URL it was discovered from (RFC 8414 §3.3), or the
 * `expectedIssuer` the configuration pins. Throws `hostile_metadata` otherwise.
 */
export function assertTrustedDiscovery(state: OAuthDiscoveryState, expectedIssuer?: string): void {
  const authorizationServer = assertSafeEndpoint(
    state.authorizationServerUrl,
    "the authorization server URL",
  );
  if (expectedIssuer !== undefined && !sameIssuer(authorizationServer.href, expectedIssuer)) {
    throw hostile(
      `the server names authorization server ${authorizationServer.origin}${authorizationServer.pathname}, not the configured issuer ${expectedIssuer}`,
    );
  }
  const resource = state.resourceMetadata;
  if (resource) {
    assertSafeEndpoint(resource.resource, "the protected resource metadata's resource");
    for (const server of resource.authorization_servers ?? []) {
      assertSafeEndpoint(server, "an authorization server in the protected resource metadata");
    }
  }
  const metadata = state.authorizationServerMetadata as Record<string, unknown> | undefined;
  if (!metadata) return;
  if (
    typeof metadata.issuer !== "string" ||
    !issuerMatches(metadata.issuer, authorizationServer, !resource)
  ) {
    throw hostile(
      `the authorization server metadata names issuer ${describe(metadata.issuer)}, but was discovered from ${authorizationServer.origin}${authorizationServer.pathname}`,
    );
  }
  for (const field of ENDPOINT_FIELDS) {
    const value = metadata[field];
    if (value !== undefined) assertSafeEndpoint(String(value), `the authorization server's ${field}`);
  }
}

/**
 * RFC 8414 §3.3: the issuer is the URL the metadata was discovered from. Without protected resource
 * metadata (the 2025-03-26 flow) the authorization server is by definition the MCP server's origin,
 * so an issuer anywhere on that origin is accepted there, and nowhere else.
 */
function issuerMatches(issuer: string, discoveredFrom: URL, legacyFallback: boolean): boolean {
  if (sameIssuer(issuer, discoveredFrom.href)) return true;
  if (!legacyFallback) return false;
  try {
    return new URL(issuer).origin === discoveredFrom.origin;
  } catch {
    return false;
  }
}

/** Two issuer identifiers are the same when they parse to the same URL, give or take one trailing "/". */
export function sameIssuer(a: string, b: string): boolean {
  const normalize = (text: string): string => {
    try {
      const href = new URL(text).href;
      return href.endsWith("/") ? href.slice(0, -1) : href;
    } catch {
      return text;
    }
  };
  return normalize(a) === normalize(b);
}

function describe(value: unknown): string {
  if (typeof value !== "string") return "none";
  try {
    const url = new URL(value);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "(not a URL)";
  }
}

function hostile(message: string): OAuthFlowError {
  return new OAuthFlowError(OAUTH_ERROR_CODES.hostileMetadata, `Refused the OAuth metadata: ${message}.`);
}
