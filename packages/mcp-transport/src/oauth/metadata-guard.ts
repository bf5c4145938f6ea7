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

/** What {@link assertTrustedDiscovery} checks discovery against. */
export interface TrustedDiscoveryOptions {
  /** The MCP server's URL: an authorization server over plain http is accepted only when this is on this machine too. */
  serverUrl: string | URL;
  /** The only authorization server (issuer) to accept, as the configuration pins it. */
  expectedIssuer?: string;
  /**
   * Origins besides the authorization server's own where the configuration lets its endpoints be
   * (e.g. `https://oauth2.googleapis.com` for an issuer `https://accounts.google.com`).
   */
  endpointOrigins?: readonly string[];
}

/**
 * Checks discovery's result: every URL it names is https (plain http only when the MCP server and
 * the authorization server are both on this machine, or the configuration pins the issuer), the
 * authorization server's metadata names as `issuer` the URL it was discovered from (RFC 8414 §3.3)
 * or the configured `expectedIssuer`, and every endpoint it names is on the issuer's origin or on
 * one of the configured `endpointOrigins`. Throws `hostile_metadata` otherwise.
 */
export function assertTrustedDiscovery(state: OAuthDiscoveryState, options: TrustedDiscoveryOptions): void {
  const { expectedIssuer } = options;
  // Plain http stays on this machine: only a server on this machine may send the client there.
  const plainHttpAllowed = isLoopbackUrl(new URL(options.serverUrl));
  const authorizationServer = assertSafeEndpoint(
    state.authorizationServerUrl,
    "the authorization server URL",
  );
  if (expectedIssuer !== undefined && !sameIssuer(authorizationServer.href, expectedIssuer)) {
    throw hostile(
      `the server names authorization server ${authorizationServer.origin}${authorizationServer.pathname}, not the configured issuer ${expectedIssuer}`,
    );
  }
  if (expectedIssuer === undefined)
    assertPlainHttpAllowed(authorizationServer, "the authorization server URL", plainHttpAllowed);
  const resource = state.resourceMetadata;
  if (resource) {
    assertSafeEndpoint(resource.resource, "the protected resource metadata's resource");
    for (const server of resource.authorization_servers ?? []) {
      const what = "an authorization server in the protected resource metadata";
      const url = assertSafeEndpoint(server, what);
      if (expectedIssuer === undefined) assertPlainHttpAllowed(url, what, plainHttpAllowed);
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
  const origins = new Set([authorizationServer.origin, ...(options.endpointOrigins ?? []).map(originOf)]);
  for (const field of ENDPOINT_FIELDS) {
    const value = metadata[field];
    if (value === undefined) continue;
    const endpoint = assertSafeEndpoint(String(value), `the authorization server's ${field}`);
    if (!origins.has(endpoint.origin)) {
      throw hostile(
        `the authorization server's ${field} is on ${endpoint.origin}, not on its own origin ${authorizationServer.origin}; if that origin is right, list it in the server's OAuth endpointOrigins`,
      );
    }
  }
}

function assertPlainHttpAllowed(url: URL, what: string, allowed: boolean): void {
  if (url.protocol === "http:" && !allowed) {
    throw hostile(
      `${what} is plain http on this machine, which only an MCP server on this machine may name (pin it as the issuer if it is right)`,
    );
  }
}

/** The origin of a configured URL; one that does not parse names no origin, so it admits nothing. */
function originOf(text: string): string {
  try {
    return new URL(text).origin;
  } catch {
    return "null";
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
